/* ready_queue.c: the per-cluster FIFO. See ready_queue.h. */
#include "ready_queue.h"
#include "spinlock.h"

#include <cfa/thread.h>

bool ready_queue_push(struct ready_queue *q, struct cfa_thread *t, const _Atomic unsigned *idle_count)
{
    t->next = NULL;
    spin_lock(&q->lock);
    if (q->tail)
        q->tail->next = t;
    else
        q->head = t;
    q->tail = t;
    atomic_store_explicit(&q->length, atomic_load_explicit(&q->length, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    /* Inside the lock: a processor that registered as idle before our
     * acquire is counted here; one that registers after our release will
     * find t when it rechecks the queue under this same lock. */
    bool wake = atomic_load_explicit(idle_count, memory_order_relaxed) != 0;
    spin_unlock(&q->lock);
    return wake;
}

struct cfa_thread *ready_queue_pop_locked(struct ready_queue *q)
{
    spin_lock(&q->lock);
    struct cfa_thread *t = q->head;
    if (t) {
        q->head = t->next;
        if (!q->head)
            q->tail = NULL;
        atomic_store_explicit(&q->length, atomic_load_explicit(&q->length, memory_order_relaxed) - 1,
                              memory_order_relaxed);
    }
    spin_unlock(&q->lock);
    return t;
}
