/* owner_lock.c: the recursive FIFO lock (see cfa/std/owner_lock.h).
 *
 * Everything under one spinlock. The final unlock hands the lock to the
 * oldest waiter (owner and recursion set for it) before waking it, so the
 * lock is never free while someone waits.
 */
#include <cfa/std/owner_lock.h>

#include "lock_release.h"

static void hand_over_locked(struct cfa_owner_lock *l, struct std_wakes *wakes)
{
    struct cfa_std_waiter *w = waitq_claim(&l->waiters);
    if (w) {
        l->owner = w->wait->thread;
        l->recursion = 1;
        wait_complete(w, STD_OK, wakes);
    } else {
        l->owner = NULL;
        l->recursion = 0;
    }
}

/* Takes l for the calling thread with nesting `depth` (or one more level
 * if it holds l already). */
static void acquire(struct cfa_owner_lock *l, unsigned depth)
{
    struct cfa_thread *me = cfa_active_thread();
    std_lock(&l->lock);
    if (!l->owner) {
        l->owner = me;
        l->recursion = depth;
        spin_unlock(&l->lock);
        return;
    }
    if (l->owner == me) {
        l->recursion++;
        spin_unlock(&l->lock);
        return;
    }
    wait_in(&l->waiters, &l->lock, NULL, "owner_lock");
    /* Handed over with recursion 1; owner == me, so no one else writes it. */
    std_lock(&l->lock);
    l->recursion = depth;
    spin_unlock(&l->lock);
}

void cfa_owner_lock_acquire(struct cfa_owner_lock *l) { acquire(l, 1); }

_Bool cfa_owner_lock_try_acquire(struct cfa_owner_lock *l)
{
    struct cfa_thread *me = cfa_active_thread();
    bool               got = false;
    std_lock(&l->lock);
    if (!l->owner) {
        l->owner = me;
        l->recursion = 1;
        got = true;
    } else if (l->owner == me) {
        l->recursion++;
        got = true;
    }
    spin_unlock(&l->lock);
    return got;
}

/* Under l->lock: fatal unless the caller holds l. */
static void check_owner_locked(struct cfa_owner_lock *l, const char *what)
{
    struct cfa_thread *owner = l->owner;
    if (owner == cfa_active_thread())
        return;
    spin_unlock(&l->lock);
    if (owner)
        cfa_fatal("%s of an owner_lock held by thread %s, not by this thread", what,
                  cfa_thread_name(owner));
    cfa_fatal("%s of an owner_lock that is not locked", what);
}

void cfa_owner_lock_release(struct cfa_owner_lock *l)
{
    struct std_wakes wakes = { 0 };
    std_lock(&l->lock);
    check_owner_locked(l, "unlock");
    if (--l->recursion == 0)
        hand_over_locked(l, &wakes);
    spin_unlock(&l->lock);
    wakes_run(&wakes);
}

unsigned std_owner_lock_release_all(struct cfa_owner_lock *l)
{
    struct std_wakes wakes = { 0 };
    std_lock(&l->lock);
    check_owner_locked(l, "wait on a condition_variable");
    unsigned depth = l->recursion;
    hand_over_locked(l, &wakes);
    spin_unlock(&l->lock);
    wakes_run(&wakes);
    return depth;
}

void std_owner_lock_reacquire(struct cfa_owner_lock *l, unsigned depth) { acquire(l, depth); }

_Bool cfa_owner_lock_owned(struct cfa_owner_lock *l)
{
    std_lock(&l->lock);
    bool mine = l->owner == cfa_active_thread();
    spin_unlock(&l->lock);
    return mine;
}

unsigned cfa_owner_lock_depth(struct cfa_owner_lock *l)
{
    std_lock(&l->lock);
    unsigned depth = l->owner == cfa_active_thread() ? l->recursion : 0;
    spin_unlock(&l->lock);
    return depth;
}
