/* pthread_cond.c: condition variables that block only the calling user
 * thread (the shared protocol is in pthread_wait.h).
 *
 * State, inside glibc's pthread_cond_t: a word whose bit QLOCK is the
 * queue lock, the clock of timed waits (the attribute's), and the FIFO of
 * waiters. A waiter queues itself before it lets the mutex go, so a
 * signal sent once the signaller holds the mutex cannot be missed; signal
 * takes the oldest waiter off the queue and broadcast all of them, and
 * each retakes the mutex before returning. A process-shared condition
 * variable is glibc's (bit 0 of glibc's __wrefs marks it).
 */
#include "pthread_wait.h"
#include "pthread_mutex.h"

#include <stddef.h>

PT_UNIT(cond);

enum { QLOCK = 1 };

struct pt_cond {
    _Atomic unsigned word;
    int              clock;
    struct pt_queue  queue;
};
_Static_assert(sizeof(struct pt_cond) <= offsetof(pthread_cond_t, __data.__wrefs),
               "glibc's process-shared mark stays untouched");

static inline bool is_glibc(const pthread_cond_t *c) { return c->__data.__wrefs & 1; }

int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
    int pshared = PTHREAD_PROCESS_PRIVATE;
    clockid_t clock = CLOCK_REALTIME;
    if (attr) {
        pthread_condattr_getpshared(attr, &pshared);
        pthread_condattr_getclock(attr, &clock);
    }
    if (pshared != PTHREAD_PROCESS_PRIVATE)
        return pt_real(pthread_cond_init)(c, attr);
    memset(c, 0, sizeof *c);
    ((struct pt_cond *)c)->clock = clock;
    return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
    if (is_glibc(c))
        return pt_real(pthread_cond_destroy)(c);
    return 0;
}

static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, int64_t deadline)
{
    struct pt_cond *x = (struct pt_cond *)c;
    struct pt_waiter w;
    pt_waiter_init(&w, 0, deadline);
    pt_qlock(&x->word, QLOCK);
    unsigned count;
    int r = pt_mutex_release_for_wait(m, &count);
    if (r) {
        pt_qunlock(&x->word, QLOCK);
        return r;
    }
    pt_push(&x->queue, &w);
    r = pt_wait(&x->word, QLOCK, &x->queue, &w, deadline, "pthread_cond_wait");
    pt_mutex_retake_after_wait(m, count);
    return r;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    if (is_glibc(c))
        return pt_real(pthread_cond_wait)(c, m);
    return cond_wait(c, m, PT_NO_DEADLINE);
}

int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clock,
                           const struct timespec *abstime)
{
    if (is_glibc(c))
        return pt_real(pthread_cond_clockwait)(c, m, clock, abstime);
    int64_t deadline;
    int r = pt_deadline(abstime, clock, &deadline);
    return r ? r : cond_wait(c, m, deadline);
}

int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *abstime)
{
    if (is_glibc(c))
        return pt_real(pthread_cond_timedwait)(c, m, abstime);
    return pthread_cond_clockwait(c, m, ((struct pt_cond *)c)->clock, abstime);
}

int pthread_cond_signal(pthread_cond_t *c)
{
    if (is_glibc(c))
        return pt_real(pthread_cond_signal)(c);
    struct pt_cond *x = (struct pt_cond *)c;
    if (pt_empty(&x->queue)) /* nobody queued before the signaller's mutex section */
        return 0;
    pt_qlock(&x->word, QLOCK);
    struct pt_waiter *w = pt_pop(&x->queue);
    pt_qunlock(&x->word, QLOCK);
    if (w)
        pt_grant(w);
    return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
    if (is_glibc(c))
        return pt_real(pthread_cond_broadcast)(c);
    struct pt_cond *x = (struct pt_cond *)c;
    if (pt_empty(&x->queue))
        return 0;
    pt_qlock(&x->word, QLOCK);
    struct pt_waiter *all = pt_pop_all(&x->queue);
    pt_qunlock(&x->word, QLOCK);
    pt_grant_all(all);
    return 0;
}
