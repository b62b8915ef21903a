/* cfa/internal/queue.h: the intrusive FIFO that every waiting list of the
 * runtime and the standard library is (internal: not part of the user API;
 * public structures embed its two types only so that they keep one layout).
 *
 * An element embeds a `struct cfa_qlink`; a queue is a `struct cfa_queue`
 * (head and tail, oldest first). Nothing is allocated: the caller owns the
 * elements and the lock that guards the queue. cfa_queue_entry turns a
 * link back into its element (container_of).
 *
 * Invariants (checked by cfa_assert in the debug build, cfa/internal/assert.h):
 *  - head is NULL exactly when tail is NULL, and tail->next is NULL;
 *  - an element is in at most one queue, once: an element out of every
 *    queue has next == NULL (all-zero, cfa_qlink_init, or taken off by
 *    pop_front or remove), and push checks that, and that it is not
 *    already the tail.
 * All-zero is an empty queue and an unqueued link. `head` is written with
 * relaxed atomic stores (plain stores on x86-64), so cfa_queue_empty_unlocked
 * may look without the lock.
 *
 * Operations, all O(1) but remove (O(n)):
 *   cfa_queue_push_back, cfa_queue_push_front, cfa_queue_pop_front,
 *   cfa_queue_peek, cfa_queue_empty, cfa_queue_remove, cfa_queue_splice_back,
 *   cfa_queue_take_all (with cfa_qlink_take_next), cfa_queue_foreach.
 */
#ifndef CFA_INTERNAL_QUEUE_H
#define CFA_INTERNAL_QUEUE_H

#include <cfa/internal/assert.h>
#include <stdbool.h>
#include <stddef.h>

struct cfa_qlink {
    struct cfa_qlink *next;
};

struct cfa_queue {
    struct cfa_qlink *head, *tail;
};

/* The element of type `type` whose member `member` is the link l. */
#define cfa_queue_entry(l, type, member) ((type *)((char *)(l) - offsetof(type, member)))

/* Every element from the head on; `it` (a struct cfa_qlink *) must not
 * be taken off the queue inside the loop. */
#define cfa_queue_foreach(it, q) for (struct cfa_qlink *it = (q)->head; it; it = it->next)

static inline void cfa_qlink_init(struct cfa_qlink *l) { l->next = NULL; }

static inline void cfa_queue_check(const struct cfa_queue *q)
{
    cfa_assert("queue: a head exactly when a tail, and the tail last",
               (q->head == NULL) == (q->tail == NULL) && (!q->tail || !q->tail->next));
    (void)q;
}

static inline void cfa_queue_set_head_(struct cfa_queue *q, struct cfa_qlink *l)
{
    __atomic_store_n(&q->head, l, __ATOMIC_RELAXED);
}

static inline bool cfa_queue_empty(const struct cfa_queue *q) { return q->head == NULL; }

/* Without the queue's lock: whether it was empty when the caller last
 * synchronised with its writers. */
static inline bool cfa_queue_empty_unlocked(const struct cfa_queue *q)
{
    return __atomic_load_n(&q->head, __ATOMIC_RELAXED) == NULL;
}

static inline struct cfa_qlink *cfa_queue_peek(const struct cfa_queue *q) { return q->head; }

static inline void cfa_queue_push_back(struct cfa_queue *q, struct cfa_qlink *l)
{
    cfa_queue_check(q);
    cfa_assert("queue: an element is in at most one queue, once", !l->next && l != q->tail);
    if (q->tail)
        q->tail->next = l;
    else
        cfa_queue_set_head_(q, l);
    q->tail = l;
}

static inline void cfa_queue_push_front(struct cfa_queue *q, struct cfa_qlink *l)
{
    cfa_queue_check(q);
    cfa_assert("queue: an element is in at most one queue, once", !l->next && l != q->tail);
    l->next = q->head;
    cfa_queue_set_head_(q, l);
    if (!q->tail)
        q->tail = l;
}

/* The oldest element, taken off (its next cleared); NULL when empty. */
static inline struct cfa_qlink *cfa_queue_pop_front(struct cfa_queue *q)
{
    cfa_queue_check(q);
    struct cfa_qlink *l = q->head;
    if (l) {
        cfa_queue_set_head_(q, l->next);
        if (!l->next)
            q->tail = NULL;
        l->next = NULL;
    }
    return l;
}

/* Takes l off q wherever it is; false if it is not in q. */
static inline bool cfa_queue_remove(struct cfa_queue *q, struct cfa_qlink *l)
{
    cfa_queue_check(q);
    struct cfa_qlink *prev = NULL;
    for (struct cfa_qlink *it = q->head; it; prev = it, it = it->next) {
        if (it != l)
            continue;
        if (prev)
            prev->next = l->next;
        else
            cfa_queue_set_head_(q, l->next);
        if (q->tail == l)
            q->tail = prev;
        l->next = NULL;
        return true;
    }
    return false;
}

/* Moves every element of src, in order, behind those of dst; src is
 * left empty. */
static inline void cfa_queue_splice_back(struct cfa_queue *dst, struct cfa_queue *src)
{
    cfa_queue_check(dst);
    cfa_queue_check(src);
    if (!src->head)
        return;
    if (dst->tail)
        dst->tail->next = src->head;
    else
        cfa_queue_set_head_(dst, src->head);
    dst->tail = src->tail;
    cfa_queue_set_head_(src, NULL);
    src->tail = NULL;
}

/* Empties q and returns its elements, oldest first, still linked by next
 * (NULL after the last). Walk them with cfa_qlink_take_next, which
 * unlinks each so that it may be queued again (or freed). */
static inline struct cfa_qlink *cfa_queue_take_all(struct cfa_queue *q)
{
    cfa_queue_check(q);
    struct cfa_qlink *all = q->head;
    cfa_queue_set_head_(q, NULL);
    q->tail = NULL;
    return all;
}

/* In a list from cfa_queue_take_all: l's successor, l then unlinked. */
static inline struct cfa_qlink *cfa_qlink_take_next(struct cfa_qlink *l)
{
    struct cfa_qlink *next = l->next;
    l->next = NULL;
    return next;
}

#endif
