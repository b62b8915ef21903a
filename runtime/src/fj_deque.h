/* fj_deque.h: the work deque of one thread (Chase and Lev, "Dynamic
 * circular work-stealing deque", SPAA 2005, with the C11 orderings of Lê et
 * al., PPoPP 2013).
 *
 * The owner pushes and pops task records at the bottom; thieves take them
 * from the top. A record is copied in and out by value (five words), so a
 * spawn allocates nothing.
 *
 * Invariants:
 *  1. top <= bottom + 1 at every moment, top never decreases; the records
 *     of the deque are the indices [top, bottom) of `ring`.
 *  2. Only the owner writes `bottom` and the ring's slots, and replaces
 *     `ring`; a slot index i is written only while i >= bottom, so a thief
 *     that read slot `top` and then wins the CAS on `top` read a record
 *     that nobody overwrote (the owner grows the ring before it could wrap
 *     onto a live slot).
 *  3. A ring that was replaced stays allocated (on `ring->older`) as long
 *     as the deque: a thief may still be reading it.
 * Slots are read and written word by word with relaxed atomics: a thief
 * that loses the race may read a slot while the owner rewrites it, and
 * throws what it read away.
 */
#ifndef CFA_FJ_DEQUE_H
#define CFA_FJ_DEQUE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <cfa/forkjoin.h>

/* A task: run(task) does the work; the runtime then marks it finished in
 * its group. `group` holds the group's address, plus FJ_COUNTED when the
 * group counts the task from its spawn (forkjoin.c: which tasks are
 * counted). a, b, c: run's operands (a function and its argument, or a
 * loop and a sub-range). */
struct fj_task {
    void (*run)(struct fj_task *task);
    uintptr_t group;
    uintptr_t a;
    int64_t b, c;
};
#define FJ_COUNTED ((uintptr_t)1)

static inline cfa_task_group *fj_task_group(const struct fj_task *t)
{
    return (cfa_task_group *)(t->group & ~FJ_COUNTED);
}
enum { FJ_TASK_WORDS = sizeof(struct fj_task) / sizeof(uintptr_t) };

struct fj_ring {
    int64_t         mask;      /* capacity - 1 (a power of 2 minus 1) */
    struct fj_ring *older;     /* the ring this one replaced */
    _Atomic uintptr_t slot[][FJ_TASK_WORDS];
};

struct fj_deque {
    _Atomic int64_t top __attribute__((aligned(64)));   /* thieves take here */
    _Atomic int64_t bottom __attribute__((aligned(64))); /* the owner pushes here */
    _Atomic(struct fj_ring *) ring;
};

/* Sets d up empty; false when out of memory. */
bool fj_deque_init(struct fj_deque *d);
/* The owner's slow path of push: a ring twice as large. */
struct fj_ring *fj_deque_grow(struct fj_deque *d, struct fj_ring *r, int64_t top, int64_t bottom);

/* A full fence. On x86-64 a locked no-op on the stack is one that costs
 * half of mfence (which also orders non-temporal stores, which nothing
 * here makes); ThreadSanitizer only understands the C11 fence. */
static inline void fj_fence(void)
{
#if defined(__x86_64__) && !defined(__SANITIZE_THREAD__) && !__has_feature(thread_sanitizer)
    __asm__ volatile("lock orq $0, (%%rsp)" ::: "memory", "cc");
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

static inline void fj_slot_store(struct fj_ring *r, int64_t i, const struct fj_task *t)
{
    const uintptr_t *w = (const uintptr_t *)t;
    for (int k = 0; k < FJ_TASK_WORDS; k++)
        atomic_store_explicit(&r->slot[i & r->mask][k], w[k], memory_order_relaxed);
}

static inline void fj_slot_load(struct fj_ring *r, int64_t i, struct fj_task *t)
{
    uintptr_t *w = (uintptr_t *)t;
    for (int k = 0; k < FJ_TASK_WORDS; k++)
        w[k] = atomic_load_explicit(&r->slot[i & r->mask][k], memory_order_relaxed);
}

static inline cfa_task_group *fj_slot_group(struct fj_ring *r, int64_t i)
{
    return (cfa_task_group *)(atomic_load_explicit(&r->slot[i & r->mask][1], memory_order_relaxed) & ~FJ_COUNTED);
}

/* Owner: adds t at the bottom (false: out of memory, t not added). */
static inline bool fj_deque_push(struct fj_deque *d, const struct fj_task *t)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed);
    int64_t top = atomic_load_explicit(&d->top, memory_order_acquire);
    struct fj_ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    if (__builtin_expect(b - top > r->mask, 0) && !(r = fj_deque_grow(d, r, top, b)))
        return false;
    fj_slot_store(r, b, t);
    atomic_store_explicit(&d->bottom, b + 1, memory_order_release);
    return true;
}

/* Owner: takes the bottom record into *t if it belongs to `only` (any
 * group when NULL). */
static inline bool fj_deque_pop(struct fj_deque *d, cfa_task_group *only, struct fj_task *t)
{
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_relaxed) - 1;
    struct fj_ring *r = atomic_load_explicit(&d->ring, memory_order_relaxed);
    if (b < atomic_load_explicit(&d->top, memory_order_relaxed))
        return false; /* empty (top only grows) */
    if (only && fj_slot_group(r, b) != only)
        return false;
    atomic_store_explicit(&d->bottom, b, memory_order_relaxed);
    fj_fence();
    int64_t top = atomic_load_explicit(&d->top, memory_order_relaxed);
    if (top > b) { /* a thief took the last one */
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        return false;
    }
    fj_slot_load(r, b, t);
    if (top == b) { /* the last one: race the thieves for it */
        bool won = atomic_compare_exchange_strong_explicit(&d->top, &top, top + 1,
                                                           memory_order_seq_cst, memory_order_relaxed);
        atomic_store_explicit(&d->bottom, b + 1, memory_order_relaxed);
        return won;
    }
    return true;
}

/* Thief: takes the top record into *t if it belongs to `only` (any group
 * when NULL). */
static inline bool fj_deque_steal(struct fj_deque *d, cfa_task_group *only, struct fj_task *t)
{
    int64_t top = atomic_load_explicit(&d->top, memory_order_acquire);
    fj_fence();
    int64_t b = atomic_load_explicit(&d->bottom, memory_order_acquire);
    if (top >= b)
        return false;
    struct fj_ring *r = atomic_load_explicit(&d->ring, memory_order_acquire);
    fj_slot_load(r, top, t);
    if (only && fj_task_group(t) != only)
        return false;
    return atomic_compare_exchange_strong_explicit(&d->top, &top, top + 1,
                                                   memory_order_seq_cst, memory_order_relaxed);
}

/* Anyone: whether the deque looked non-empty. */
static inline bool fj_deque_has_work(struct fj_deque *d)
{
    return atomic_load_explicit(&d->top, memory_order_acquire) <
           atomic_load_explicit(&d->bottom, memory_order_acquire);
}

#endif
