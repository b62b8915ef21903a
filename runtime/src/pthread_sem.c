/* pthread_sem.c: unnamed semaphores (sem_init) that block only the
 * calling user thread (the shared protocol is in pthread_wait.h).
 *
 * State, inside glibc's sem_t: the value, a word whose bit QLOCK is the
 * queue lock, a mark saying the semaphore is the runtime's (where glibc
 * keeps its futex flags), and the FIFO of waiters. Named semaphores
 * (sem_open) and process-shared ones lack the mark: they are glibc's, and
 * every call forwards to glibc.
 *
 * Invariant: the queue is empty whenever value > 0. sem_post hands its
 * unit straight to the oldest waiter if there is one and only otherwise
 * raises the value (both under QLOCK); a waiter queues itself only after
 * seeing 0 under QLOCK; taking a unit (value > 0 -> value - 1) needs no
 * lock.
 */
#include "pthread_wait.h"

#include <limits.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

PT_UNIT(sem);

enum { QLOCK = 1, RUNTIME_MARK = 0x53414643 /* "CFAS" */ };

struct pt_sem {
    _Atomic unsigned value;
    _Atomic unsigned word;
    int              mark;
    int              spare;
    struct pt_queue  queue;
};
_Static_assert(sizeof(struct pt_sem) <= sizeof(sem_t), "fits glibc's semaphore");

static inline bool is_glibc(const struct pt_sem *x) { return x->mark != RUNTIME_MARK; }

static inline bool take_unit(struct pt_sem *x)
{
    unsigned v = atomic_load_explicit(&x->value, memory_order_relaxed);
    while (v > 0)
        if (atomic_compare_exchange_weak_explicit(&x->value, &v, v - 1, memory_order_acquire,
                                                  memory_order_relaxed))
            return true;
    return false;
}

int sem_init(sem_t *s, int pshared, unsigned value)
{
    if (pshared)
        return pt_real(sem_init)(s, pshared, value);
    if (value > SEM_VALUE_MAX) {
        errno = EINVAL;
        return -1;
    }
    struct pt_sem *x = (struct pt_sem *)s;
    memset(s, 0, sizeof *s);
    atomic_store_explicit(&x->value, value, memory_order_relaxed);
    x->mark = RUNTIME_MARK;
    return 0;
}

int sem_destroy(sem_t *s)
{
    struct pt_sem *x = (struct pt_sem *)s;
    if (is_glibc(x))
        return pt_real(sem_destroy)(s);
    x->mark = 0;
    return 0;
}

/* deadline: PT_NO_DEADLINE, or -1 for sem_trywait. Returns 0 or -1 (errno). */
static int sem_take(struct pt_sem *x, int64_t deadline)
{
    if (take_unit(x))
        return 0;
    pt_qlock(&x->word, QLOCK);
    if (take_unit(x)) {
        pt_qunlock(&x->word, QLOCK);
        return 0;
    }
    if (deadline < 0) {
        pt_qunlock(&x->word, QLOCK);
        errno = EAGAIN;
        return -1;
    }
    struct pt_waiter w;
    pt_waiter_init(&w, 0, deadline);
    pt_push(&x->queue, &w);
    int r = pt_wait(&x->word, QLOCK, &x->queue, &w, deadline, "sem_wait");
    if (r) {
        errno = r;
        return -1;
    }
    return 0;
}

int sem_wait(sem_t *s)
{
    struct pt_sem *x = (struct pt_sem *)s;
    return is_glibc(x) ? pt_real(sem_wait)(s) : sem_take(x, PT_NO_DEADLINE);
}

int sem_trywait(sem_t *s)
{
    struct pt_sem *x = (struct pt_sem *)s;
    return is_glibc(x) ? pt_real(sem_trywait)(s) : sem_take(x, -1);
}

int sem_clockwait(sem_t *s, clockid_t clock, const struct timespec *abstime)
{
    struct pt_sem *x = (struct pt_sem *)s;
    if (is_glibc(x))
        return pt_real(sem_clockwait)(s, clock, abstime);
    if (take_unit(x))
        return 0;
    int64_t deadline;
    int r = pt_deadline(abstime, clock, &deadline);
    if (r) {
        errno = r;
        return -1;
    }
    return sem_take(x, deadline);
}

int sem_timedwait(sem_t *s, const struct timespec *abstime)
{
    return sem_clockwait(s, CLOCK_REALTIME, abstime);
}

int sem_post(sem_t *s)
{
    struct pt_sem *x = (struct pt_sem *)s;
    if (is_glibc(x))
        return pt_real(sem_post)(s);
    pt_qlock(&x->word, QLOCK);
    struct pt_waiter *w = pt_pop(&x->queue);
    if (w) {
        /* granted below, once the lock is let go */
    } else if (atomic_load_explicit(&x->value, memory_order_relaxed) == SEM_VALUE_MAX) {
        pt_qunlock(&x->word, QLOCK);
        errno = EOVERFLOW;
        return -1;
    } else {
        atomic_fetch_add_explicit(&x->value, 1, memory_order_release);
    }
    pt_qunlock(&x->word, QLOCK);
    if (w)
        pt_grant(w);
    return 0;
}

int sem_getvalue(sem_t *s, int *value)
{
    struct pt_sem *x = (struct pt_sem *)s;
    if (is_glibc(x))
        return pt_real(sem_getvalue)(s, value);
    *value = (int)atomic_load_explicit(&x->value, memory_order_relaxed);
    return 0;
}
