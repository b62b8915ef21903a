/* cfa/std/future.h: single-assignment futures, the C API (the cfa-lite
 * API is <cfa/future.hfa>, typed per value type).
 *
 * A future is fulfilled at most once; any number of threads may get its
 * value, blocking (park) until it is fulfilled. The value lives in the
 * caller's object (`slot`, `size` bytes): the typed wrapper puts it right
 * after the cfa_future. reset makes it empty again, for reuse.
 *
 * Errors: fulfilling a fulfilled future and resetting one that threads are
 * blocked on are fatal (cfa_fatal names the thread). A reset must not race
 * with gets of the previous value (get copies the value without the lock
 * once the future is fulfilled).
 *
 * Invariants: all-zero is an empty future; `state` goes EMPTY -> FULFILLED
 * under `lock`, with the value written before (release); waiters exist
 * only while EMPTY.
 */
#ifndef CFA_STD_FUTURE_H
#define CFA_STD_FUTURE_H

#include <stdbool.h>
#include <cfa/std/waitq.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CFA_FUTURE_EMPTY = 0, CFA_FUTURE_FULFILLED = 1 };

struct cfa_future {
    _Atomic int          lock;   /* first member: waituntil locks objects through it */
    _Atomic int          state;
    struct cfa_std_waitq waiters;
};

/* Stores *value (size bytes) in slot, wakes every waiter. Fatal if f is
 * already fulfilled. */
void  cfa_future_fulfil(struct cfa_future *f, void *slot, const void *value, size_t size);
/* Blocks until f is fulfilled, then copies the value from slot to out
 * (out may be NULL: only wait). */
void  cfa_future_get(struct cfa_future *f, const void *slot, void *out, size_t size);
bool cfa_future_available(struct cfa_future *f);
/* Back to empty. Fatal if a thread is blocked on f. */
void  cfa_future_reset(struct cfa_future *f);

#ifdef __cplusplus
}
#endif
#endif
