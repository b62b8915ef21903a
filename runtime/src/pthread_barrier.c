/* pthread_barrier.c: barriers that block only the calling user thread
 * (the shared protocol is in pthread_wait.h).
 *
 * State, inside glibc's pthread_barrier_t: a word whose bit QLOCK is the
 * queue lock, the count, how many have arrived in this round, and the
 * queue of those waiting; glibc's process-shared mark keeps its place (a
 * process-shared barrier is glibc's). The last to arrive starts the next
 * round (arrived = 0) and releases the whole queue under the lock, so a
 * thread that comes back at once belongs to the new round.
 */
#include "pthread_wait.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

PT_UNIT(barrier);

enum { QLOCK = 1 };

struct pt_barrier {
    _Atomic unsigned word;
    unsigned         needed;
    unsigned         arrived;
    int              glibc_shared;
    struct pt_queue  queue;
};
_Static_assert(sizeof(struct pt_barrier) <= sizeof(pthread_barrier_t), "fits glibc's barrier");
_Static_assert(offsetof(struct pt_barrier, glibc_shared) == 12, "glibc's process-shared mark stays");

int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *attr, unsigned count)
{
    int pshared = PTHREAD_PROCESS_PRIVATE;
    if (attr)
        pthread_barrierattr_getpshared(attr, &pshared);
    if (pshared != PTHREAD_PROCESS_PRIVATE)
        return pt_real(pthread_barrier_init)(b, attr, count);
    if (count == 0)
        return EINVAL;
    memset(b, 0, sizeof *b);
    ((struct pt_barrier *)b)->needed = count;
    return 0;
}

int pthread_barrier_destroy(pthread_barrier_t *b)
{
    struct pt_barrier *x = (struct pt_barrier *)b;
    if (x->glibc_shared)
        return pt_real(pthread_barrier_destroy)(b);
    pt_qlock(&x->word, QLOCK);
    int r = x->arrived ? EBUSY : 0;
    pt_qunlock(&x->word, QLOCK);
    return r;
}

int pthread_barrier_wait(pthread_barrier_t *b)
{
    struct pt_barrier *x = (struct pt_barrier *)b;
    if (x->glibc_shared)
        return pt_real(pthread_barrier_wait)(b);
    struct pt_waiter w;
    pt_waiter_init(&w, 0, PT_NO_DEADLINE);
    pt_qlock(&x->word, QLOCK);
    if (++x->arrived == x->needed) {
        x->arrived = 0;
        struct pt_waiter *all = pt_pop_all(&x->queue);
        pt_qunlock(&x->word, QLOCK);
        pt_grant_all(all);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    pt_push(&x->queue, &w);
    pt_wait(&x->word, QLOCK, &x->queue, &w, PT_NO_DEADLINE, "pthread_barrier_wait");
    return 0;
}
