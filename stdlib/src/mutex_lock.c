/* mutex_lock.c: the barging mutex lock (see cfa/std/mutex_lock.h).
 *
 * The three-state protocol of a futex mutex, with park/unpark in place of
 * the futex: lock tries 0 -> 1; on failure it sets 2 ("maybe waited on")
 * under qlock and, if the lock was not free after all, queues itself
 * before releasing qlock. unlock swaps in 0; only if it took a 2 does it
 * take qlock and wake the oldest waiter, which then tries again (and
 * marks 2 again, as it cannot know whether others wait).
 */
#include <cfa/std/mutex_lock.h>

#include "waitq.h"

enum { FREE = 0, HELD = 1, CONTENDED = 2 };

static struct cfa_thread *self(void) { return cfa_active_thread(); }

_Bool cfa_mutex_lock_try_acquire(struct cfa_mutex_lock *m)
{
    int free = FREE;
    if (!atomic_compare_exchange_strong_explicit(&m->state, &free, HELD, memory_order_acquire,
                                                 memory_order_relaxed))
        return false;
    atomic_store_explicit(&m->owner, self(), memory_order_relaxed);
    return true;
}

void cfa_mutex_lock_acquire(struct cfa_mutex_lock *m)
{
    if (cfa_mutex_lock_try_acquire(m))
        return;
    struct cfa_thread *me = self();
    if (atomic_load_explicit(&m->owner, memory_order_relaxed) == me)
        cfa_fatal("lock of a mutex_lock that this thread already holds (not recursive: use owner_lock)");
    for (;;) {
        std_lock(&m->qlock);
        if (atomic_exchange_explicit(&m->state, CONTENDED, memory_order_acquire) == FREE) {
            spin_unlock(&m->qlock);
            atomic_store_explicit(&m->owner, me, memory_order_relaxed);
            return;
        }
        wait_in(&m->waiters, &m->qlock, NULL, "mutex_lock");
    }
}

void cfa_mutex_lock_release(struct cfa_mutex_lock *m)
{
    struct cfa_thread *owner = atomic_load_explicit(&m->owner, memory_order_relaxed);
    if (owner != self()) {
        if (owner)
            cfa_fatal("unlock of a mutex_lock held by thread %s, not by this thread",
                      cfa_thread_name(owner));
        cfa_fatal("unlock of a mutex_lock that is not locked");
    }
    atomic_store_explicit(&m->owner, NULL, memory_order_relaxed);
    if (atomic_exchange_explicit(&m->state, FREE, memory_order_release) != CONTENDED)
        return;
    struct std_wakes wakes = { 0 };
    std_lock(&m->qlock);
    struct cfa_std_waiter *w = waitq_claim(&m->waiters);
    if (w)
        wait_complete(w, STD_OK, &wakes);
    spin_unlock(&m->qlock);
    wakes_run(&wakes);
}

_Bool cfa_mutex_lock_owned(struct cfa_mutex_lock *m)
{
    return atomic_load_explicit(&m->owner, memory_order_relaxed) == self();
}
