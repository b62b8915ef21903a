/* sched_sync.h: the blocking objects of the thesis's micro-benchmarks
 * (chapter 7), built on cfa_park/cfa_unpark only, so that every block and
 * wake-up they cause is a ready-queue pop and push of the scheduler under
 * test, for the scheduler tests (test/scheduler).
 *
 *   struct csem   counting semaphore, FIFO waiters (churn, transfer "park")
 *   struct seat   one-thread seat with a hand-over (locality, thesis 7.6)
 *   prng_next     xorshift64*, one state per thread
 *
 * Every object counts what it did under its own lock, so that a test can
 * check the books balance exactly at the end (a P that blocked is matched
 * by exactly one V that woke it; count = Vs - Ps). A waiter woken without
 * being granted (a stray permit) is reported by the return value.
 */
#ifndef CFA_SCHED_SYNC_H
#define CFA_SCHED_SYNC_H

#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t prng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static inline uint64_t prng_seed(uint64_t salt)
{
    uint64_t s = (salt + 1) * 0x9E3779B97F4A7C15ULL;
    return s ? s : 1;
}

/* A user-level spinlock: holders may be preempted (program code is
 * preemptible), so a waiter yields its processor after a while. */
static inline void ss_lock(_Atomic int *l)
{
    for (unsigned spins = 0;; spins++) {
        if (!atomic_load_explicit(l, memory_order_relaxed) &&
            !atomic_exchange_explicit(l, 1, memory_order_acquire))
            return;
        if (spins >= 64) {
            cfa_yield();
            spins = 0;
        } else {
            __builtin_ia32_pause();
        }
    }
}

static inline void ss_unlock(_Atomic int *l) { atomic_store_explicit(l, 0, memory_order_release); }

/* ---- counting semaphore ------------------------------------------------- */

struct csem_waiter {
    struct cfa_thread  *thread;
    struct csem_waiter *next;
    uintptr_t           data;     /* handed over by the V that grants */
    _Atomic int         granted;
};

struct csem {
    _Atomic int         lock;
    long                count;
    struct csem_waiter *head, *tail;
    /* books, under lock */
    long                vs, ps, blocks, wakes;
} __attribute__((aligned(64)));

/* P: returns 0 if it did not block, 1 if it blocked and was granted by a
 * V, -1 if it blocked and woke without a grant (a stray permit: a bug).
 * *data (if not NULL) receives the grant's word. */
static inline int csem_p(struct csem *s, uintptr_t *data)
{
    ss_lock(&s->lock);
    s->ps++;
    if (s->count > 0) {
        s->count--;
        ss_unlock(&s->lock);
        return 0;
    }
    struct csem_waiter w = { .thread = cfa_active_thread() };
    if (s->tail)
        s->tail->next = &w;
    else
        s->head = &w;
    s->tail = &w;
    s->blocks++;
    ss_unlock(&s->lock);
    cfa_park();
    if (!atomic_load_explicit(&w.granted, memory_order_acquire))
        return -1;
    if (data)
        *data = w.data;
    return 1;
}

/* V: wakes the oldest waiter (handing it `data`) or adds one to the count.
 * Returns whether it woke a thread. */
static inline bool csem_v(struct csem *s, uintptr_t data)
{
    ss_lock(&s->lock);
    s->vs++;
    struct csem_waiter *w = s->head;
    if (!w) {
        s->count++;
        ss_unlock(&s->lock);
        return false;
    }
    s->head = w->next;
    if (!s->head)
        s->tail = NULL;
    s->wakes++;
    struct cfa_thread *t = w->thread;
    w->data = data;
    atomic_store_explicit(&w->granted, 1, memory_order_release);
    ss_unlock(&s->lock);
    cfa_unpark(t); /* w may be gone once t runs: only t is used here */
    return true;
}

/* ---- seat: one waiting thread, displaced by the next arrival ------------
 *
 * The locality benchmark's spot (thesis 7.6): a thread arriving at a seat
 * takes it and parks; the thread it displaces is woken. With `share`, the
 * arrival swaps work arrays with the displaced thread: the woken thread
 * continues with the array the arrival has just written (ownership moves
 * to the woken thread, thesis Figure 7.11b), and the arrival sits holding
 * the displaced thread's old one, untouched until it is woken. Every array
 * is thus owned by exactly one thread at any time. An arrival is visible
 * in the seat before it has finished its own hand-over, so the next
 * arrival waits for `settled` before it swaps with it. A closed seat takes
 * nobody: an arrival returns at once, and closing wakes the sitter. */
struct seat_sitter {
    struct cfa_thread *thread;
    void             **array;    /* the sitter's array slot */
    _Atomic int        settled;  /* its own hand-over is done: *array is stable */
    _Atomic int        released; /* set by whoever woke it */
};

#define SEAT_CLOSED ((struct seat_sitter *)1)

struct seat {
    _Atomic(struct seat_sitter *) sitter;
    _Atomic long displaced, closed_wakes; /* books */
} __attribute__((aligned(64)));

enum seat_result { SEAT_WOKEN, SEAT_WAS_CLOSED, SEAT_STRAY_PERMIT };

static inline enum seat_result seat_sit(struct seat *s, void **array, bool share)
{
    struct seat_sitter me = { .thread = cfa_active_thread(), .array = array };
    struct seat_sitter *old = atomic_load(&s->sitter);
    do {
        if (old == SEAT_CLOSED)
            return SEAT_WAS_CLOSED;
    } while (!atomic_compare_exchange_weak(&s->sitter, &old, &me));
    if (old) {
        /* Nobody else can reach `old` now: its record is ours until the
         * unpark (it may still be finishing its own hand-over, or not have
         * parked yet: the permit then makes its park return at once). */
        if (share) {
            for (unsigned spins = 0; !atomic_load_explicit(&old->settled, memory_order_acquire); spins++)
                if (spins % 64 == 63)
                    cfa_yield(); /* it may have been preempted mid-hand-over */
                else
                    __builtin_ia32_pause();
            void *mine = *array;
            *array = *old->array;
            *old->array = mine;
        }
        atomic_fetch_add_explicit(&s->displaced, 1, memory_order_relaxed);
        struct cfa_thread *t = old->thread;
        atomic_store_explicit(&old->released, 1, memory_order_release);
        atomic_store_explicit(&me.settled, 1, memory_order_release);
        cfa_unpark(t);
    } else {
        atomic_store_explicit(&me.settled, 1, memory_order_release);
    }
    cfa_park();
    return atomic_load_explicit(&me.released, memory_order_acquire) ? SEAT_WOKEN : SEAT_STRAY_PERMIT;
}

/* Closes the seat for good, waking its sitter if any. */
static inline void seat_close(struct seat *s)
{
    struct seat_sitter *old = atomic_exchange(&s->sitter, SEAT_CLOSED);
    if (old && old != SEAT_CLOSED) {
        atomic_fetch_add_explicit(&s->closed_wakes, 1, memory_order_relaxed);
        struct cfa_thread *t = old->thread;
        atomic_store_explicit(&old->released, 1, memory_order_release);
        cfa_unpark(t);
    }
}

#endif
