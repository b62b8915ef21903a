/* semaphore.c: the FIFO counting semaphore (see cfa/std/semaphore.h).
 *
 * `count` is the permits when positive and minus the P calls that must
 * wait when negative, so P and V are one atomic add each when no one
 * waits (as glibc's sem_t: one locked instruction each); only a V that
 * finds waiters (the old count < 0) and a P that finds no permit (old
 * count <= 0) take the lock.
 *
 * A P that has made the count negative may not have queued yet when the
 * V meant for it comes: the V then leaves its permit in `handed`, which
 * the next P to reach the queue under the lock takes instead of
 * queueing. So a V never counts a permit in `count` while a P is owed
 * one, and a P arriving after the queue is non-empty (count already
 * negative) never takes a permit before the waiters queued before it.
 *
 * Invariants: under `lock`, the number of queued waiters plus the Ps on
 * their way to the queue equals max(0, -count) + handed; handed > 0 only
 * while some P is on its way (so it is never left over).
 */
#include <cfa/std/semaphore.h>

#include <limits.h>

#include "waitq.h"

void cfa_semaphore_init(struct cfa_semaphore *s, long long count)
{
    if (count < 0)
        cfa_fatal("semaphore init with a negative count (%lld)", count);
    memset(s, 0, sizeof *s);
    atomic_store_explicit(&s->count, count, memory_order_relaxed);
}

/* No permit was left: wait in FIFO order for one from a V. */
void cfa_semaphore_wait(struct cfa_semaphore *sem)
{
    std_lock(&sem->lock);
    if (sem->handed > 0) {
        sem->handed--;
        spin_unlock(&sem->lock);
        return;
    }
    wait_in(&sem->waiters, &sem->lock, NULL, "semaphore P");
}


_Bool cfa_semaphore_try_P(struct cfa_semaphore *sem)
{
    long long n = atomic_load_explicit(&sem->count, memory_order_relaxed);
    while (n > 0)
        if (atomic_compare_exchange_weak_explicit(&sem->count, &n, n - 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return true;
    return false;
}

/* A P waits or is about to (old < 0): hand it this permit. */
void cfa_semaphore_V_slow(struct cfa_semaphore *sem, long long old)
{
    if (old >= 0)
        cfa_fatal("semaphore V: the count would overflow");
    struct std_wakes wakes = { 0 };
    std_lock(&sem->lock);
    struct cfa_std_waiter *w = waitq_claim(&sem->waiters);
    if (w)
        wait_complete(w, STD_OK, &wakes);
    else
        sem->handed++;
    spin_unlock(&sem->lock);
    wakes_run(&wakes);
}


long long cfa_semaphore_count(struct cfa_semaphore *sem)
{
    long long n = atomic_load_explicit(&sem->count, memory_order_relaxed);
    return n > 0 ? n : 0;
}
