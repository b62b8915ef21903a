/* cfa/std/select.h: waiting on several channels and futures at once, the
 * C API (the cfa-lite API is waituntil in <cfa/select.hfa>).
 *
 * cfa_select performs exactly one of its clauses - a receive, a send, or a
 * future's get - blocking (park) until one can complete, and returns its
 * index. When several can complete at once it starts looking at a random
 * clause, so no clause starves another.
 *
 * Closed channels: a receive clause on a closed, drained channel is
 * disabled (it never fires); when no enabled clause is left the call
 * returns CFA_SELECT_CLOSED instead of blocking forever. A send clause on a
 * closed channel is a fatal error, as cfa_channel_send is.
 *
 * timeout_ns < 0 waits forever, 0 only polls, > 0 waits at most that long;
 * CFA_SELECT_TIMEOUT when the time is up with nothing done. At most
 * CFA_SELECT_MAX clauses (fatal beyond). A channel or future may appear in
 * several clauses.
 */
#ifndef CFA_STD_SELECT_H
#define CFA_STD_SELECT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum cfa_select_kind {
    CFA_SELECT_RECV = 1,  /* object: struct cfa_channel *, value: where the value goes */
    CFA_SELECT_SEND = 2,  /* object: struct cfa_channel *, value: the value to send */
    CFA_SELECT_FUTURE = 3 /* object: struct cfa_future *, value: out or NULL, slot/size: its value */
};

enum { CFA_SELECT_TIMEOUT = -1, CFA_SELECT_CLOSED = -2 };
#define CFA_SELECT_MAX 64

struct cfa_select_clause {
    int         kind;
    void       *object;
    void       *value;
    const void *slot;
    size_t      size;
};

int cfa_select(struct cfa_select_clause *clauses, unsigned n, int64_t timeout_ns);

#ifdef __cplusplus
}
#endif
#endif
