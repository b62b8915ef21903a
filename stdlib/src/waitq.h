/* waitq.h: how a library operation blocks and how another one completes it.
 *
 * A blocked operation is a `std_wait` on its thread's stack; it is
 * published in one or more object queues through `cfa_std_waiter` records
 * (a waituntil has one per clause, all sharing one std_wait). Whoever
 * completes it (a sender for a blocked receiver, an unlock for a waiting
 * locker, a close, ...) does so under the object's spinlock:
 *
 *   w = waitq_claim(q);      pops the oldest waiter it may complete
 *   <transfer data to/from w->value, hand over ownership, ...>
 *   wait_complete(w, status, &wakes);
 *   spin_unlock(...);
 *   wakes_run(&wakes);       wakes them, outside the lock
 *
 * Claiming. A plain untimed wait sits in one queue only, so popping it is
 * claiming it. A shared (waituntil) or timed wait can also be claimed by
 * another object's waker or by its timeout: whoever moves `state` from
 * PENDING first (one compare-and-swap) completes it; a loser just drops
 * the record from its queue.
 *
 * No library call under a spinlock. Nothing between std_lock and
 * spin_unlock may call into a shared library, not even through a PLT stub:
 * the stub is program text, so the preemption signal may switch the thread
 * out there with the lock held, and the threads spinning for it (in code
 * that is never preempted) would then keep every processor busy forever.
 * So values are copied by std_copy (no memcpy), memory is allocated with
 * no lock held, and every wake-up, even the timed one (cfa_unpark_timed
 * may write an eventfd), happens in wakes_run after the unlock.
 *
 * Invariants:
 *  - a record is reachable from a queue only while `queued`; queues
 *    change only under their object's lock;
 *  - a claimed waiter returns only after `done` (set by wakes_run, its
 *    claimant's last access to the record: what it needs is read before),
 *    so its stack frame outlives every reference to it; a shared or timed
 *    waiter also re-locks its objects before returning, to unlink its
 *    other records;
 *  - every untimed claim ends in exactly one cfa_unpark, which its waiter
 *    consumes (wait_untimed), a timed one in one cfa_unpark_timed (which
 *    gives no permit if the timeout won): no stray permit is left.
 */
#ifndef CFA_STD_SRC_WAITQ_H
#define CFA_STD_SRC_WAITQ_H

#include <cfa/internal/queue.h>
#include <cfa/runtime.h>
#include <cfa/std/waitq.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "std_lock.h"

#define STD_HIDDEN __attribute__((visibility("hidden")))

enum { STD_PENDING = 0, STD_CLAIMED = 1, STD_TIMED_OUT = 2 };
enum { STD_OK = 0, STD_CLOSED = 1 };

struct std_wait {
    struct cfa_thread     *thread;
    struct cfa_timed_park *timed;     /* a timed wait, else NULL */
    _Atomic int            state;     /* PENDING, CLAIMED, TIMED_OUT (shared or timed) */
    _Atomic int            done;      /* claimed: set by wakes_run */
    bool                   shared;    /* several records (waituntil): claims compete */
    int                    fired;     /* the claimed record's clause */
    int                    status;    /* STD_OK or STD_CLOSED, from the claimant */
    struct cfa_qlink       woken;     /* in a wakes list */
};

/* Doubly linked, unlike the runtime's FIFO (cfa/internal/queue.h): a
 * waituntil unlinks every clause that did not fire, and a timed wait its
 * record, from the middle of queues that may be long, in O(1). */
struct cfa_std_waiter {
    struct cfa_std_waiter *next, *prev;
    struct std_wait       *wait;
    void                  *value;   /* send: the value; recv, get: where it goes */
    int                    clause;
    bool                   queued;
};

struct std_wakes {
    struct cfa_queue woken; /* of struct std_wait, in claim order */
};

static inline void std_wait_init(struct std_wait *s, struct cfa_timed_park *timed, bool shared)
{
    memset(s, 0, sizeof *s);
    s->thread = cfa_active_thread();
    s->timed = timed;
    s->shared = shared;
}

static inline void waitq_push(struct cfa_std_waitq *q, struct cfa_std_waiter *w)
{
    w->next = NULL;
    w->prev = q->tail;
    if (q->tail)
        q->tail->next = w;
    else
        q->head = w;
    q->tail = w;
    w->queued = true;
}

static inline void waitq_remove(struct cfa_std_waitq *q, struct cfa_std_waiter *w)
{
    if (!w->queued)
        return;
    if (w->prev)
        w->prev->next = w->next;
    else
        q->head = w->next;
    if (w->next)
        w->next->prev = w->prev;
    else
        q->tail = w->prev;
    w->queued = false;
}

static inline bool waitq_empty(const struct cfa_std_waitq *q) { return q->head == NULL; }

/* Pops the oldest waiter that this caller may complete, dropping those
 * that someone else claimed first; NULL when none is left. */
static inline struct cfa_std_waiter *waitq_claim(struct cfa_std_waitq *q)
{
    struct cfa_std_waiter *w;
    while ((w = q->head)) {
        waitq_remove(q, w);
        struct std_wait *s = w->wait;
        if (!s->shared && !s->timed)
            return w;
        int pending = STD_PENDING;
        if (atomic_compare_exchange_strong(&s->state, &pending, STD_CLAIMED))
            return w;
    }
    return NULL;
}

/* Under the lock, after the transfer: records the outcome and queues the
 * wake-up for wakes_run. */
static inline void wait_complete(struct cfa_std_waiter *w, int status, struct std_wakes *wakes)
{
    struct std_wait *s = w->wait;
    s->fired = w->clause;
    s->status = status;
    cfa_queue_push_back(&wakes->woken, &s->woken);
}

/* After the unlock: wakes the waits completed under it. */
static inline void wakes_run(struct std_wakes *wakes)
{
    for (struct cfa_qlink *l = cfa_queue_take_all(&wakes->woken), *next; l; l = next) {
        next = cfa_qlink_take_next(l); /* the wait may be gone once done */
        struct std_wait *s = cfa_queue_entry(l, struct std_wait, woken);
        if (s->timed) {
            /* false: its timeout fired first; it is awake anyway */
            cfa_unpark_timed(s->timed);
            atomic_store_explicit(&s->done, 1, memory_order_release);
        } else {
            struct cfa_thread *t = s->thread;
            atomic_store_explicit(&s->done, 1, memory_order_release);
            cfa_unpark(t);
        }
    }
}

/* The untimed waiter's side: waits until its claimant's wakes_run, and
 * takes exactly one permit for it (the runtime's rule for its own one-shot
 * wake-ups, io_wakeup.h): the claimant's unpark follows its `done` store,
 * so a waiter that saw `done` without parking parks once more for it (at
 * once, or for the few instructions until it comes), and permits of other
 * parties consumed meanwhile are given back. No stray permit is left. */
static inline void wait_untimed(struct std_wait *s, const char *reason)
{
    unsigned parks = 0;
    while (!atomic_load_explicit(&s->done, memory_order_acquire)) {
        cfa_park_for(reason);
        parks++;
    }
    if (parks == 0)
        cfa_park_for(reason);
    struct cfa_thread *self = s->thread;
    while (parks-- > 1)
        cfa_unpark(self);
}

/* The common way to block: publishes a plain untimed wait for `value` in q,
 * releases the lock that guards q, parks until a claimant completes it,
 * and returns the claimant's status. */
static inline int wait_in(struct cfa_std_waitq *q, _Atomic int *lock, void *value,
                          const char *reason)
{
    struct std_wait       s;
    struct cfa_std_waiter w = { .value = value };
    std_wait_init(&s, NULL, false);
    w.wait = &s;
    waitq_push(q, &w);
    spin_unlock(lock);
    wait_untimed(&s, reason);
    return s.status;
}

/* The absolute deadline of a timeout (>= 0) on cfa_clock_ns's clock,
 * saturating instead of overflowing for huge timeouts. */
static inline int64_t std_deadline(int64_t timeout_ns)
{
    int64_t now = cfa_clock_ns();
    return timeout_ns > INT64_MAX - now ? INT64_MAX : now + timeout_ns;
}

/* The timed waiter's side (s->timed bound by cfa_timed_park_init before
 * publishing): parks until claimed or the deadline, then settles the race
 * with a late claimant, whose wakes_run it lets finish (it runs outside
 * any lock, so yielding to it is enough). Returns true if claimed. The
 * caller must then re-lock its objects and remove its records that are
 * still queued. */
static inline bool wait_timed(struct std_wait *s, int64_t deadline_ns)
{
    cfa_park_deadline_ns(s->timed, deadline_ns);
    int pending = STD_PENDING;
    if (atomic_compare_exchange_strong(&s->state, &pending, STD_TIMED_OUT))
        return false;
    while (!atomic_load_explicit(&s->done, memory_order_acquire))
        cfa_yield();
    return true;
}

/* Copies values under a spinlock without calling memcpy (see above): the
 * loop must stay a loop, hence no_builtin and noinline (a loop inlined into
 * a caller could be turned back into a call there). */
__attribute__((noinline, no_builtin("memcpy"))) static void std_copy_words(unsigned char *dst,
                                                                           const unsigned char *src,
                                                                           size_t size)
{
    for (; size >= 8; size -= 8, dst += 8, src += 8)
        __builtin_memcpy(dst, src, 8); /* constant size: a move, never a call */
    for (; size; size--)
        *dst++ = *src++;
}

/* Copies one element: most are 4 or 8 bytes, copied inline. */
static inline void std_copy(void *dst, const void *src, size_t size)
{
    switch (size) {
    case 4: __builtin_memcpy(dst, src, 4); break;
    case 8: __builtin_memcpy(dst, src, 8); break;
    case 16: __builtin_memcpy(dst, src, 16); break;
    default: std_copy_words(dst, src, size); break;
    }
}

#endif
