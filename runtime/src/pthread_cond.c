/* pthread_cond.c: condition variables that block only the calling user
 * thread (the protocol shared by every object is in pthread_wait.h).
 *
 * State, inside glibc's pthread_cond_t: a word whose bit QLOCK is the
 * queue lock, the clock of timed waits (the attribute's), and the FIFO of
 * waiters. A process-shared condition variable is glibc's (bit 0 of
 * glibc's __wrefs marks it).
 *
 * Protocol (the waiter holds the mutex m when it calls wait):
 *   W1. the waiter takes QLOCK and queues its record;
 *   W2. it lets m go (all of a recursive mutex's count);
 *   W3. it lets QLOCK go and blocks until granted (or its deadline passes:
 *       pthread_wait.h, step 3);
 *   W4. it retakes m, and its recursive count, and returns.
 *   S1. a signaller (holding m or not) looks at the queue's head without
 *       QLOCK: empty, it returns at once;
 *   S2. otherwise it takes QLOCK, takes the oldest record (broadcast: all
 *       of them) off the queue, lets QLOCK go, and grants each.
 * Invariant: a waiter is queued before it lets m go (W1 before W2). A
 * signaller that changed the predicate under m took m after every waiter
 * that saw the old predicate let it go, so its S1 sees them queued (m's
 * release and acquire order the queue's head): S1's empty answer never
 * loses a waiter, whether the waiter is a user thread or a kernel thread.
 * The test hook's step CFA_STEP_COND_RELEASED sits between W2 and W3, run
 * without QLOCK (test/pthread/cond_lost_wakeup.c holds a waiter there
 * while another thread takes m and signals).
 * Lock order: QLOCK, then m's queue lock (W2 under QLOCK).
 * runtime/verify/pthread_cond.pml checks these steps with the mutex's
 * (pthread_mutex.c) exhaustively for user-thread and kernel-thread
 * waiters (`make verify`).
 */
#include "pthread_wait.h"
#include "pthread_mutex.h"

#include <cfa/test_hook.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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
    pt_qlock(&x->word, QLOCK); /* W1 */
    pt_push(&x->queue, &w);
    unsigned count;
    int r = pt_mutex_release_for_wait(m, &count); /* W2 */
    if (r) {
        pt_remove(&x->queue, &w);
        pt_qunlock(&x->word, QLOCK);
        return r;
    }
    if (cfa_test_hook) { /* without QLOCK: the signaller it waits for needs it */
        pt_qunlock(&x->word, QLOCK);
        cfa_test_hook(CFA_STEP_COND_RELEASED);
        pt_qlock(&x->word, QLOCK);
    }
    r = pt_wait(&x->word, QLOCK, &x->queue, &w, deadline, "pthread_cond_wait"); /* W3 */
    pt_mutex_retake_after_wait(m, count); /* W4 */
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
    if (pt_empty(&x->queue)) /* S1: nobody queued before the signaller's mutex section */
        return 0;
    pt_qlock(&x->word, QLOCK); /* S2 */
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
    if (pt_empty(&x->queue)) /* S1 */
        return 0;
    pt_qlock(&x->word, QLOCK); /* S2 */
    struct pt_waiter *all = pt_pop_all(&x->queue);
    pt_qunlock(&x->word, QLOCK);
    pt_grant_all(all);
    return 0;
}
