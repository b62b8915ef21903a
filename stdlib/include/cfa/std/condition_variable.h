/* cfa/std/condition_variable.h: a condition variable for mutex_lock and
 * owner_lock.
 *
 * wait releases the lock (an owner_lock entirely, whatever its nesting),
 * blocks the calling user thread (park) until notified, and takes the lock
 * back (an owner_lock at the same nesting) before returning. The timed
 * form returns false when the time ran out first (the lock is held again
 * either way). Spurious wake-ups do not happen: wait returns only after a
 * notify chose this waiter (or the timeout).
 * notify_one wakes the oldest waiter, notify_all every waiter; the
 * notifier need not hold the lock. Both return how many they woke.
 *
 * Fairness: waiters are notified in FIFO order; a notified waiter takes the
 * lock back under that lock's own policy (barging for mutex_lock, FIFO for
 * owner_lock).
 *
 * Errors (fatal, naming the thread): waiting without holding the lock.
 *
 * Invariant: all-zero is a condition variable with no waiter; `waiters`
 * changes only under `lock`.
 */
#ifndef CFA_STD_CONDITION_VARIABLE_H
#define CFA_STD_CONDITION_VARIABLE_H

#include <stdbool.h>
#include <cfa/std/mutex_lock.h>
#include <cfa/std/owner_lock.h>
#include <cfa/std/waitq.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_condition_variable {
    _Atomic int          lock;
    struct cfa_std_waitq waiters;
};

void     cfa_condvar_wait_mutex(struct cfa_condition_variable *cv, struct cfa_mutex_lock *m);
void     cfa_condvar_wait_owner(struct cfa_condition_variable *cv, struct cfa_owner_lock *l);
/* timeout_ns <= 0 only releases and retakes the lock (false unless notified already). */
bool    cfa_condvar_wait_mutex_for(struct cfa_condition_variable *cv, struct cfa_mutex_lock *m,
                                    int64_t timeout_ns);
bool    cfa_condvar_wait_owner_for(struct cfa_condition_variable *cv, struct cfa_owner_lock *l,
                                    int64_t timeout_ns);
unsigned cfa_condvar_notify_one(struct cfa_condition_variable *cv);
unsigned cfa_condvar_notify_all(struct cfa_condition_variable *cv);
bool    cfa_condvar_empty(struct cfa_condition_variable *cv);

#ifdef __cplusplus
}
#endif
#endif
