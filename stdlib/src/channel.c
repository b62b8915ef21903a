/* channel.c: channels (see cfa/std/channel.h for the contract).
 *
 * One spinlock guards the ring and both wait queues; critical sections
 * copy one value and move at most one waiter, and wake-ups happen after
 * the unlock (waitq.h). A sender facing a blocked receiver copies its
 * value straight into the receiver's destination; a receiver that empties
 * a slot of a full buffer refills it from the oldest blocked sender. So a
 * value is copied once or twice, and blocked threads are served FIFO.
 *
 * The unbounded ring doubles when full: the send reports NEED_ROOM, its
 * caller allocates twice the slots with no lock held (waitq.h: no library
 * call under a spinlock), and installs the new ring under the lock unless
 * another sender did it first; then it tries again. Amortised O(1).
 */
#include "select_ops.h"

#include <stdlib.h>

static const size_t UNBOUNDED_FIRST_SLOTS = 16;

static void *ring_alloc(size_t slots, size_t elem_size)
{
    if (slots > SIZE_MAX / elem_size)
        cfa_fatal("channel: a buffer of %zu values of %zu bytes is too large", slots, elem_size);
    void *p = malloc(slots * elem_size ? slots * elem_size : 1);
    if (!p)
        cfa_fatal("channel: out of memory (%zu values of %zu bytes)", slots, elem_size);
    return p;
}

void cfa_channel_init(struct cfa_channel *c, size_t elem_size, size_t capacity)
{
    if (elem_size == 0)
        cfa_fatal("channel init: element size 0 (an empty struct?) is not supported");
    memset(c, 0, sizeof *c);
    c->elem_size = elem_size;
    c->capacity = capacity;
    if (capacity != 0 && capacity != CFA_CHANNEL_UNBOUNDED) {
        c->slots = capacity;
        c->ring = ring_alloc(capacity, elem_size);
    }
}

void cfa_channel_destroy(struct cfa_channel *c)
{
    std_lock(&c->lock);
    bool busy = !waitq_empty(&c->senders) || !waitq_empty(&c->receivers);
    spin_unlock(&c->lock);
    if (busy)
        cfa_fatal("channel destroyed while threads are blocked on it");
    free(c->ring);
    memset(c, 0, sizeof *c);
}

static inline void check_init(const struct cfa_channel *c)
{
    if (__builtin_expect(c->elem_size == 0, 0))
        cfa_fatal("channel used before init (init(&c, capacity))");
}

static inline unsigned char *slot(struct cfa_channel *c, size_t i)
{
    size_t at = c->head + i;
    if (at >= c->slots)
        at -= c->slots;
    return c->ring + at * c->elem_size;
}

void std_channel_make_room(struct cfa_channel *c)
{
    std_lock(&c->lock);
    size_t slots = c->slots ? c->slots * 2 : UNBOUNDED_FIRST_SLOTS;
    bool   full = c->count == c->slots;
    spin_unlock(&c->lock);
    if (!full)
        return;
    unsigned char *fresh = ring_alloc(slots, c->elem_size), *old = NULL;
    std_lock(&c->lock);
    if (c->slots < slots && c->count == c->slots) { /* nobody grew it meanwhile */
        for (size_t i = 0; i < c->count; i++)
            std_copy(fresh + i * c->elem_size, slot(c, i), c->elem_size);
        old = c->ring;
        c->ring = fresh;
        c->slots = slots;
        c->head = 0;
        fresh = NULL;
    }
    spin_unlock(&c->lock);
    free(old);
    free(fresh);
}

int std_channel_send_now(struct cfa_channel *c, const void *value, struct std_wakes *wakes)
{
    check_init(c);
    if (c->closed)
        return CFA_CHANNEL_CLOSED;
    struct cfa_std_waiter *r = waitq_claim(&c->receivers);
    if (r) {
        std_copy(r->value, value, c->elem_size);
        wait_complete(r, STD_OK, wakes);
        return CFA_CHANNEL_OK;
    }
    if (c->count == c->slots)
        return c->capacity == CFA_CHANNEL_UNBOUNDED ? STD_CHANNEL_NEED_ROOM : CFA_CHANNEL_WOULD_BLOCK;
    std_copy(slot(c, c->count), value, c->elem_size);
    c->count++;
    return CFA_CHANNEL_OK;
}

int std_channel_recv_now(struct cfa_channel *c, void *out, struct std_wakes *wakes)
{
    check_init(c);
    if (c->count) {
        std_copy(out, slot(c, 0), c->elem_size);
        c->head = c->head + 1 == c->slots ? 0 : c->head + 1;
        c->count--;
        struct cfa_std_waiter *s = waitq_claim(&c->senders);
        if (s) { /* the buffer was full: the oldest blocked value takes the free slot */
            std_copy(slot(c, c->count), s->value, c->elem_size);
            c->count++;
            wait_complete(s, STD_OK, wakes);
        }
        return CFA_CHANNEL_OK;
    }
    struct cfa_std_waiter *s = waitq_claim(&c->senders); /* rendezvous */
    if (s) {
        std_copy(out, s->value, c->elem_size);
        wait_complete(s, STD_OK, wakes);
        return CFA_CHANNEL_OK;
    }
    return c->closed ? CFA_CHANNEL_CLOSED : CFA_CHANNEL_WOULD_BLOCK;
}

/* Takes c's lock and tries the send, growing an unbounded ring as needed;
 * returns with the lock held. */
static int lock_and_send_now(struct cfa_channel *c, const void *value, struct std_wakes *wakes)
{
    std_lock(&c->lock);
    int r;
    while ((r = std_channel_send_now(c, value, wakes)) == STD_CHANNEL_NEED_ROOM) {
        spin_unlock(&c->lock);
        std_channel_make_room(c);
        std_lock(&c->lock);
    }
    return r;
}

/* Sends now, or blocks in the senders' queue until a receiver (or close)
 * completes the send. */
static int send_or_block(struct cfa_channel *c, const void *value)
{
    struct std_wakes wakes = { 0 };
    int r = lock_and_send_now(c, value, &wakes);
    if (r != CFA_CHANNEL_WOULD_BLOCK) {
        spin_unlock(&c->lock);
        wakes_run(&wakes);
        return r;
    }
    int status = wait_in(&c->senders, &c->lock, (void *)value, "channel send");
    return status == STD_OK ? CFA_CHANNEL_OK : CFA_CHANNEL_CLOSED;
}

/* Receives now, or blocks until a sender (or close) completes it. */
static int recv_or_block(struct cfa_channel *c, void *out)
{
    struct std_wakes wakes = { 0 };
    std_lock(&c->lock);
    int r = std_channel_recv_now(c, out, &wakes);
    if (r != CFA_CHANNEL_WOULD_BLOCK) {
        spin_unlock(&c->lock);
        wakes_run(&wakes);
        return r;
    }
    int status = wait_in(&c->receivers, &c->lock, out, "channel recv");
    return status == STD_OK ? CFA_CHANNEL_OK : CFA_CHANNEL_CLOSED;
}

void cfa_channel_send(struct cfa_channel *c, const void *value)
{
    if (send_or_block(c, value) == CFA_CHANNEL_CLOSED)
        cfa_fatal("send on a closed channel");
}

_Bool cfa_channel_recv(struct cfa_channel *c, void *out)
{
    return recv_or_block(c, out) == CFA_CHANNEL_OK;
}

void cfa_channel_recv_value(struct cfa_channel *c, void *out)
{
    if (recv_or_block(c, out) == CFA_CHANNEL_CLOSED)
        cfa_fatal("recv on a closed and drained channel (recv(&c, &v) returns false instead)");
}

int cfa_channel_try_send(struct cfa_channel *c, const void *value)
{
    struct std_wakes wakes = { 0 };
    int r = lock_and_send_now(c, value, &wakes);
    spin_unlock(&c->lock);
    wakes_run(&wakes);
    return r;
}

int cfa_channel_try_recv(struct cfa_channel *c, void *out)
{
    struct std_wakes wakes = { 0 };
    std_lock(&c->lock);
    int r = std_channel_recv_now(c, out, &wakes);
    spin_unlock(&c->lock);
    wakes_run(&wakes);
    return r;
}

void cfa_channel_close(struct cfa_channel *c)
{
    struct std_wakes wakes = { 0 };
    std_lock(&c->lock);
    check_init(c);
    if (c->closed) {
        spin_unlock(&c->lock);
        cfa_fatal("close of a closed channel");
    }
    c->closed = true;
    /* Blocked receivers imply an empty buffer: they see the close now.
     * Blocked senders can never complete: they report the error. */
    struct cfa_std_waiter *w;
    while ((w = waitq_claim(&c->receivers)))
        wait_complete(w, STD_CLOSED, &wakes);
    while ((w = waitq_claim(&c->senders)))
        wait_complete(w, STD_CLOSED, &wakes);
    spin_unlock(&c->lock);
    wakes_run(&wakes);
}

_Bool cfa_channel_is_closed(struct cfa_channel *c)
{
    std_lock(&c->lock);
    bool closed = c->closed;
    spin_unlock(&c->lock);
    return closed;
}

size_t cfa_channel_length(struct cfa_channel *c)
{
    std_lock(&c->lock);
    size_t n = c->count;
    spin_unlock(&c->lock);
    return n;
}

size_t cfa_channel_capacity(const struct cfa_channel *c) { return c->capacity; }
