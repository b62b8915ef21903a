/* timer.c: sleeping and timed parks (cfa/sleep.h).
 *
 * Every timed wait is a struct cfa_timed_park (on the waiter's stack) in
 * one binary min-heap ordered by deadline, under one spinlock. There is no
 * timer thread: processors service the heap when they poll for I/O and
 * arm a wake-up for its earliest deadline before they sleep (timer.h).
 *
 * The claim-once protocol (see io_wakeup.h): a record's state is WAITING
 * until the first of {its deadline, a waker} claims it with one CAS, to
 * TIMED_OUT or WOKEN (with WAKE_CLAIMED set until the winner has
 * unparked the thread). Only the winner unparks, so the thread wakes once
 * and a late waker leaves no permit behind.
 *
 * Invariants:
 *  - the heap, heap_index and deadline fields are guarded by heap_lock;
 *    heap_index is NOT_IN_HEAP exactly when the record is not in the heap;
 *  - the timer claims a record only after removing it from the heap, under
 *    the lock: so a record claimed by the timer is out of the heap, and
 *    the waiter, which passes through the lock before returning when a
 *    waker won, never returns while the timer may still read it;
 *  - timer_earliest_deadline is the heap's minimum (TIMER_NONE if empty),
 *    republished under the lock after every change;
 *  - heap order: no record's deadline is earlier than its parent's.
 * The debug build checks the heap order and every heap_index at each
 * republication (check_heap; O(n) per change, debug only).
 */
#include "invariant.h"
#include "thread_internal.h"
#include "io_wakeup.h"
#include "spinlock.h"
#include "timer.h"

#include <cfa/runtime.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

enum { TP_WAITING = 1, TP_WOKEN = 2, TP_TIMED_OUT = 3 };
#define NOT_IN_HEAP SIZE_MAX

_Atomic int64_t timer_earliest_deadline = TIMER_NONE;

static _Atomic int heap_lock;
static struct cfa_timed_park **heap;
static size_t heap_len, heap_cap;

void timer_fork_child(void)
{
    atomic_store(&heap_lock, 0);
    heap_len = 0; /* every record was a parked thread of the parent's */
    atomic_store(&timer_earliest_deadline, TIMER_NONE);
}

int64_t cfa_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- the heap (all under heap_lock) -------------------------------------- */

static void heap_set(size_t i, struct cfa_timed_park *w)
{
    heap[i] = w;
    w->heap_index = i;
}

static void sift_up(size_t i)
{
    struct cfa_timed_park *w = heap[i];
    while (i > 0 && heap[(i - 1) / 2]->deadline > w->deadline) {
        heap_set(i, heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(i, w);
}

static void sift_down(size_t i)
{
    struct cfa_timed_park *w = heap[i];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        int64_t dm = w->deadline;
        if (l < heap_len && heap[l]->deadline < dm) { m = l; dm = heap[l]->deadline; }
        if (r < heap_len && heap[r]->deadline < dm) m = r;
        if (m == i)
            break;
        heap_set(i, heap[m]);
        i = m;
    }
    heap_set(i, w);
}

/* A plain loop, never a call to memcpy: no library call runs under the
 * heap's spinlock (a thread preempted at a library call's PLT stub would
 * hold the lock while the others spin). */
__attribute__((no_builtin("memcpy"))) static void copy_entries(struct cfa_timed_park **to, size_t n)
{
    for (size_t i = 0; i < n; i++)
        to[i] = heap[i];
}

/* Makes room for one more entry. Called and returns with the lock held,
 * but allocates and frees with it dropped. */
static void heap_reserve(void)
{
    while (heap_len == heap_cap) {
        size_t cap = heap_cap ? heap_cap * 2 : 256;
        spin_unlock(&heap_lock);
        struct cfa_timed_park **fresh = malloc(cap * sizeof *fresh);
        if (!fresh)
            cfa_fatal("out of memory in the timer heap");
        spin_lock(&heap_lock);
        struct cfa_timed_park **old = fresh; /* someone else grew it meanwhile */
        if (heap_cap < cap) {
            copy_entries(fresh, heap_len);
            old = heap;
            heap = fresh;
            heap_cap = cap;
        }
        spin_unlock(&heap_lock);
        free(old);
        spin_lock(&heap_lock);
    }
}

static void heap_insert(struct cfa_timed_park *w)
{
    heap_len++;
    heap[heap_len - 1] = w;
    sift_up(heap_len - 1);
}

static void heap_remove(struct cfa_timed_park *w)
{
    size_t i = w->heap_index;
    struct cfa_timed_park *last = heap[--heap_len];
    if (i != heap_len) {
        heap_set(i, last);
        sift_up(i);
        sift_down(last->heap_index);
    }
    w->heap_index = NOT_IN_HEAP;
}

/* Heap order and positions (debug build). */
static void check_heap(void)
{
#ifdef CFA_DEBUG
    for (size_t i = 0; i < heap_len; i++) {
        cfa_assert("timer heap: a record's heap_index is its position", heap[i]->heap_index == i);
        cfa_assert("timer heap order: no deadline earlier than its parent's",
                   i == 0 || heap[(i - 1) / 2]->deadline <= heap[i]->deadline);
    }
#endif
}

static void publish_earliest(void)
{
    check_heap();
    atomic_store_explicit(&timer_earliest_deadline, heap_len ? heap[0]->deadline : TIMER_NONE,
                          memory_order_relaxed);
}

#ifdef CFA_DEBUG
/* cfa/debug.h: the earliest record goes behind its children, and the heap
 * is republished as after any change. */
void cfa_debug_timer_disorder(void)
{
    spin_lock(&heap_lock);
    if (heap_len >= 2)
        heap[0]->deadline = heap[heap_len - 1]->deadline + 1;
    publish_earliest();
    spin_unlock(&heap_lock);
}
#endif

/* ---- servicing (processors, fallback poller) ------------------------------ */

unsigned timer_service(int64_t now)
{
    if (timer_earliest() > now)
        return 0;
    struct cfa_queue expired = { 0 };
    spin_lock(&heap_lock);
    while (heap_len && heap[0]->deadline <= now) {
        struct cfa_timed_park *w = heap[0];
        heap_remove(w);
        if (wakeup_claim(&w->state, TP_WAITING, TP_TIMED_OUT))
            cfa_queue_push_back(&expired, &w->expired);
        /* else a waker won: it unparks; the waiter finds w out of the heap */
    }
    publish_earliest();
    spin_unlock(&heap_lock);
    /* Unparks outside the lock, in deadline order. Each record stays valid
     * until its wakeup_deliver: its waiter waits for it. */
    unsigned n = 0;
    for (struct cfa_qlink *l; (l = cfa_queue_pop_front(&expired));) {
        struct cfa_timed_park *w = cfa_queue_entry(l, struct cfa_timed_park, expired);
        struct cfa_thread *t = w->thread;
        wakeup_deliver(t, &w->state, TP_TIMED_OUT);
        n++;
    }
    return n;
}

/* ---- the waiting side ------------------------------------------------------ */

void cfa_timed_park_init(struct cfa_timed_park *w)
{
    struct cfa_thread *self = this_thread();
    if (!self)
        cfa_fatal("timed park from a kernel thread that is not a processor");
    w->thread = self;
    w->deadline = 0;
    w->heap_index = NOT_IN_HEAP;
    cfa_qlink_init(&w->expired);
    atomic_store_explicit(&w->state, TP_WAITING, memory_order_release);
}

static int timed_park(struct cfa_timed_park *w, int64_t deadline, const char *reason)
{
    if (w->thread != this_thread())
        cfa_fatal("timed park on a record that cfa_timed_park_init did not bind to this thread");
    if (deadline >= TIMER_NONE)
        deadline = TIMER_NONE - 1; /* TIMER_NONE means "no timer" */
    if (deadline <= cfa_clock_ns()) {
        /* Already due: claim the timeout ourselves, no unpark needed. */
        if (wakeup_claim(&w->state, TP_WAITING, TP_TIMED_OUT)) {
            atomic_store_explicit(&w->state, TP_TIMED_OUT, memory_order_relaxed);
            return CFA_PARK_TIMED_OUT;
        }
        /* A waker won first: take its permit below. */
    } else {
        spin_lock(&heap_lock);
        heap_reserve();
        if (atomic_load_explicit(&w->state, memory_order_relaxed) == TP_WAITING) {
            w->deadline = deadline;
            heap_insert(w);
            publish_earliest();
        }
        spin_unlock(&heap_lock);
    }
    int final = wakeup_wait(&w->state, TP_WAITING, reason);
    if (final == TP_WOKEN) {
        /* The waker won; the record may still be in the heap. */
        spin_lock(&heap_lock);
        if (w->heap_index != NOT_IN_HEAP) {
            heap_remove(w);
            publish_earliest();
        }
        spin_unlock(&heap_lock);
        return CFA_PARK_WOKEN;
    }
    return CFA_PARK_TIMED_OUT;
}

int cfa_park_deadline_ns(struct cfa_timed_park *w, int64_t deadline_ns)
{
    return timed_park(w, deadline_ns, "timed park");
}

int cfa_park_timeout_ns(struct cfa_timed_park *w, int64_t ns)
{
    int64_t now = cfa_clock_ns();
    int64_t deadline = ns > TIMER_NONE - now ? TIMER_NONE - 1 : now + (ns > 0 ? ns : 0);
    return timed_park(w, deadline, "timed park");
}

bool cfa_unpark_timed(struct cfa_timed_park *w)
{
    if (!wakeup_claim(&w->state, TP_WAITING, TP_WOKEN))
        return false;
    struct cfa_thread *t = w->thread;
    wakeup_deliver(t, &w->state, TP_WOKEN);
    return true;
}

/* ---- sleep ------------------------------------------------------------------ */

void cfa_sleep_ns(int64_t ns)
{
    if (!this_thread()) {
        if (ns <= 0)
            return;
        struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        return;
    }
    if (ns <= 0) {
        cfa_yield();
        return;
    }
    struct cfa_timed_park w;
    cfa_timed_park_init(&w);
    int64_t now = cfa_clock_ns();
    timed_park(&w, ns > TIMER_NONE - now ? TIMER_NONE - 1 : now + ns, "sleep");
}
