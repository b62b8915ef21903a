/* semaphore.c: the FIFO counting semaphore (see cfa/std/semaphore.h).
 *
 * Everything under one spinlock; V hands its permit to the oldest waiter
 * instead of counting it, so count > 0 never coexists with a waiter.
 */
#include <cfa/std/semaphore.h>

#include <limits.h>

#include "waitq.h"

void cfa_semaphore_init(struct cfa_semaphore *s, long long count)
{
    if (count < 0)
        cfa_fatal("semaphore init with a negative count (%lld)", count);
    memset(s, 0, sizeof *s);
    s->count = count;
}

void cfa_semaphore_P(struct cfa_semaphore *sem)
{
    std_lock(&sem->lock);
    if (sem->count > 0) {
        sem->count--;
        spin_unlock(&sem->lock);
        return;
    }
    wait_in(&sem->waiters, &sem->lock, NULL, "semaphore P");
}

_Bool cfa_semaphore_try_P(struct cfa_semaphore *sem)
{
    std_lock(&sem->lock);
    bool got = sem->count > 0;
    if (got)
        sem->count--;
    spin_unlock(&sem->lock);
    return got;
}

void cfa_semaphore_V(struct cfa_semaphore *sem)
{
    struct std_wakes wakes = { 0 };
    std_lock(&sem->lock);
    struct cfa_std_waiter *w = waitq_claim(&sem->waiters);
    if (w) {
        wait_complete(w, STD_OK, &wakes);
    } else if (sem->count == LLONG_MAX) {
        spin_unlock(&sem->lock);
        cfa_fatal("semaphore V: the count would overflow");
    } else {
        sem->count++;
    }
    spin_unlock(&sem->lock);
    wakes_run(&wakes);
}

long long cfa_semaphore_count(struct cfa_semaphore *sem)
{
    std_lock(&sem->lock);
    long long n = sem->count;
    spin_unlock(&sem->lock);
    return n;
}
