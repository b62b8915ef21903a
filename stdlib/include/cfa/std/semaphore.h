/* cfa/std/semaphore.h: a counting semaphore.
 *
 * P takes a permit, blocking the calling user thread (park) while there is
 * none; V gives one back. Fairness: FIFO. A V with threads waiting hands
 * its permit to the oldest waiter directly, so a P arriving later never
 * takes it first.
 *
 * Errors (fatal, naming the thread): init with a negative count; a count
 * that would overflow.
 *
 * P and V are one atomic instruction each while no thread has to wait,
 * inline in the caller (stdlib/src/semaphore.c has the protocol and the
 * slow paths). A P whose call has not
 * returned yet is served in the order it reached the waiting queue.
 * All-zero is a semaphore with no permit.
 */
#ifndef CFA_STD_SEMAPHORE_H
#define CFA_STD_SEMAPHORE_H

#include <stdbool.h>
#include <cfa/std/waitq.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_semaphore {
    _Atomic long long    count;   /* permits; negative: minus the Ps owed one */
    _Atomic int          lock;    /* guards the fields below */
    long long            handed;  /* permits given to Ps not queued yet */
    struct cfa_std_waitq waiters;
};

void      cfa_semaphore_init(struct cfa_semaphore *s, long long count);
bool     cfa_semaphore_try_P(struct cfa_semaphore *s);
long long cfa_semaphore_count(struct cfa_semaphore *s); /* permits available now */

/* Out of line (semaphore.c): P found no permit; V found Ps owed one (or
 * an overflowing count), `old` being the count it found. */
void cfa_semaphore_wait(struct cfa_semaphore *s);
void cfa_semaphore_V_slow(struct cfa_semaphore *s, long long old);

static inline void cfa_semaphore_P(struct cfa_semaphore *s)
{
    if (__builtin_expect(__atomic_fetch_sub((long long *)&s->count, 1, __ATOMIC_ACQUIRE) > 0, 1))
        return;
    cfa_semaphore_wait(s);
}

static inline void cfa_semaphore_V(struct cfa_semaphore *s)
{
    long long old = __atomic_fetch_add((long long *)&s->count, 1, __ATOMIC_RELEASE);
    if (__builtin_expect(old < 0 || old == __LONG_LONG_MAX__, 0))
        cfa_semaphore_V_slow(s, old);
}

#ifdef __cplusplus
}
#endif
#endif
