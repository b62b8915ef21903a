/* cfa/std/channel.h: channels, the C API (the cfa-lite API is
 * <cfa/channel.hfa>, typed per element type).
 *
 * A channel carries values of one size (elem_size, fixed at init) from
 * senders to receivers, in FIFO order. Capacity 0 is a rendezvous (a send
 * completes when a receiver takes the value); N > 0 buffers up to N values;
 * CFA_CHANNEL_UNBOUNDED buffers any number (senders never block).
 *
 * Blocking blocks the calling user thread only (park), never its processor.
 * Blocked senders and blocked receivers are each served in FIFO order, and
 * a value never waits in the buffer while a receiver is blocked (a sender
 * hands it over directly), so nobody barges past a blocked thread.
 *
 * close: no more sends. Receivers first drain the values already buffered,
 * then see the channel closed (recv returns false, try_recv
 * CFA_CHANNEL_CLOSED); blocked receivers are woken to see it. A send on a
 * closed channel - including one blocked when the channel is closed - is a
 * program error: cfa_channel_send stops the program with a message naming
 * the thread (cfa_fatal), try_send returns CFA_CHANNEL_CLOSED. Closing twice
 * is a fatal error too.
 *
 * Invariants (under `lock`): count <= capacity; count > 0 implies no
 * blocked receiver; a blocked sender implies count == capacity; closed
 * implies no blocked sender.
 */
#ifndef CFA_STD_CHANNEL_H
#define CFA_STD_CHANNEL_H

#include <stdbool.h>
#include <cfa/std/waitq.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CFA_CHANNEL_UNBOUNDED SIZE_MAX

enum cfa_channel_status {
    CFA_CHANNEL_OK = 0,
    CFA_CHANNEL_WOULD_BLOCK = 1, /* try_: the operation would have to wait */
    CFA_CHANNEL_CLOSED = 2,
};

struct cfa_channel {
    _Atomic int          lock;      /* first member: waituntil locks objects through it */
    bool                closed;
    size_t               elem_size; /* 0: not initialised */
    size_t               capacity;  /* 0: rendezvous; CFA_CHANNEL_UNBOUNDED */
    size_t               head;      /* ring: `count` values from slot `head` */
    size_t               count;
    size_t               slots;     /* allocated slots (capacity, or grown when unbounded) */
    unsigned char       *ring;
    struct cfa_std_waitq senders;   /* blocked senders: the buffer is full */
    struct cfa_std_waitq receivers; /* blocked receivers: the buffer is empty */
};

/* Sets c up (c's previous contents are ignored). elem_size > 0. */
void cfa_channel_init(struct cfa_channel *c, size_t elem_size, size_t capacity);
/* Frees the buffer; c must have no blocked thread (fatal otherwise). */
void cfa_channel_destroy(struct cfa_channel *c);

/* Blocks until the value is taken (rendezvous) or buffered. Fatal if c is
 * or becomes closed. */
void cfa_channel_send(struct cfa_channel *c, const void *value);
/* Blocks until a value arrives (copied to *out: true) or c is closed and
 * drained (false, *out untouched). */
bool cfa_channel_recv(struct cfa_channel *c, void *out);
/* As cfa_channel_recv, but closed and drained is a fatal error: for callers
 * that have no way to report the close. */
void cfa_channel_recv_value(struct cfa_channel *c, void *out);
/* Never block: CFA_CHANNEL_OK, _WOULD_BLOCK or _CLOSED. */
int cfa_channel_try_send(struct cfa_channel *c, const void *value);
int cfa_channel_try_recv(struct cfa_channel *c, void *out);

void   cfa_channel_close(struct cfa_channel *c);
bool  cfa_channel_is_closed(struct cfa_channel *c);
size_t cfa_channel_length(struct cfa_channel *c);  /* values buffered now */
size_t cfa_channel_capacity(const struct cfa_channel *c);

#ifdef __cplusplus
}
#endif
#endif
