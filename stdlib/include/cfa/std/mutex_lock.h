/* cfa/std/mutex_lock.h: a blocking mutual-exclusion lock, not recursive.
 *
 * Blocks the calling user thread (park), never its processor.
 * Fairness: barging. Unlock frees the lock and wakes the oldest waiter,
 * which then competes with threads arriving meanwhile (the uncontended
 * path is one compare-and-swap); a waiter can be overtaken, in exchange
 * for throughput (no hand-off switch per unlock). Use owner_lock for FIFO.
 *
 * Errors (fatal, naming the thread): unlock by a thread that does not hold
 * the lock; lock by the thread that already holds it (it would wait for
 * itself forever: use owner_lock to nest).
 *
 * Invariants: all-zero is free. state: 0 free, 1 held, 2 held and maybe
 * waited on; a waiter is queued only after setting 2 under qlock, so an
 * unlock that sees 2 finds it. `owner` is the holder (diagnostics and the
 * ownership checks).
 */
#ifndef CFA_STD_MUTEX_LOCK_H
#define CFA_STD_MUTEX_LOCK_H

#include <stdbool.h>
#include <cfa/std/waitq.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_thread;

struct cfa_mutex_lock {
    _Atomic int                  state;
    _Atomic int                  qlock;  /* guards waiters */
    struct cfa_thread *_Atomic   owner;
    struct cfa_std_waitq         waiters;
};

void  cfa_mutex_lock_acquire(struct cfa_mutex_lock *m);
bool cfa_mutex_lock_try_acquire(struct cfa_mutex_lock *m);
void  cfa_mutex_lock_release(struct cfa_mutex_lock *m);
/* Whether the calling thread holds m. */
bool cfa_mutex_lock_owned(struct cfa_mutex_lock *m);

#ifdef __cplusplus
}
#endif
#endif
