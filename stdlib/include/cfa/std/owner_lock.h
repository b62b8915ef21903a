/* cfa/std/owner_lock.h: a recursive (owner) lock.
 *
 * The holder may lock it again; it is free after as many unlocks.
 * Blocks the calling user thread (park), never its processor.
 * Fairness: FIFO. A final unlock hands the lock to the oldest waiter
 * directly, so no arriving thread overtakes a waiting one.
 *
 * Errors (fatal, naming the thread): unlock by a thread that does not hold
 * it.
 *
 * Invariants (under `lock`): owner == NULL iff recursion == 0, and then no
 * thread waits; a woken waiter already owns the lock (recursion 1).
 */
#ifndef CFA_STD_OWNER_LOCK_H
#define CFA_STD_OWNER_LOCK_H

#include <stdbool.h>
#include <cfa/std/waitq.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_thread;

struct cfa_owner_lock {
    _Atomic int          lock;
    struct cfa_thread   *owner;
    unsigned             recursion;
    struct cfa_std_waitq waiters;
};

void     cfa_owner_lock_acquire(struct cfa_owner_lock *l);
bool    cfa_owner_lock_try_acquire(struct cfa_owner_lock *l);
void     cfa_owner_lock_release(struct cfa_owner_lock *l);
bool    cfa_owner_lock_owned(struct cfa_owner_lock *l);
/* The holder's nesting depth (0 when the caller does not hold it). */
unsigned cfa_owner_lock_depth(struct cfa_owner_lock *l);

#ifdef __cplusplus
}
#endif
#endif
