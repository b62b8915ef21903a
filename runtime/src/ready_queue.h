/* ready_queue.h: where a cluster's ready threads wait.
 *
 * The first queue: one FIFO under one spinlock per cluster. Fair by
 * construction (strict FIFO), simple to prove, and the seam the thesis's
 * sharded helping queue replaces. Threads are linked through t->next.
 */
#ifndef CFA_READY_QUEUE_H
#define CFA_READY_QUEUE_H

#include <stdatomic.h>
#include <stdbool.h>

struct cfa_thread;

struct ready_queue {
    _Atomic int        lock;
    struct cfa_thread *head, *tail;
    _Atomic unsigned long length;   /* read without the lock as a hint */
};

/* Appends t. Returns true when some processor of the cluster is idle and
 * should be woken: decided inside the critical section, which orders it
 * against idle_prepare_sleep's recheck (see idle.c). */
bool ready_queue_push(struct ready_queue *q, struct cfa_thread *t, const _Atomic unsigned *idle_count);

/* Removes the oldest ready thread, or returns NULL. ready_queue_pop
 * skips the lock when the queue looks empty; ready_queue_pop_locked always
 * takes it, as the idle recheck must (see ready_queue_push). */
struct cfa_thread *ready_queue_pop_locked(struct ready_queue *q);

static inline bool ready_queue_maybe_empty(struct ready_queue *q);

static inline struct cfa_thread *ready_queue_pop(struct ready_queue *q)
{
    return ready_queue_maybe_empty(q) ? (struct cfa_thread *)0 : ready_queue_pop_locked(q);
}

static inline bool ready_queue_maybe_empty(struct ready_queue *q)
{
    return atomic_load_explicit(&q->length, memory_order_relaxed) == 0;
}

#endif
