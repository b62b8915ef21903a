/* forkjoin.c: tasks, task groups and the fork-join workers of a cluster
 * (docs/forkjoin.md: design and cost model).
 *
 * Owns, per cluster, a pool: the deques of the threads that spawned tasks
 * (a thread gets one at its first spawn, in cfa_thread.forkjoin, and gives
 * it back to the pool when it halts), the workers and the sleeping ones.
 *
 * Workers are ordinary cfa-lite threads, one per processor of the cluster
 * (more are started when processors are added), scheduled through the
 * ready queue like any thread: a worker pops its own deque, else steals
 * from a random deque of the pool, and yields after every stolen task, so
 * a fork-join phase takes turns with the cluster's other threads (and is
 * preempted like them). A worker that finds nothing twice sleeps (parks).
 *
 * A task group counts the tasks that may finish on another thread. The
 * thread that first spawns into a group from its own stack is its owner
 * (a group first spawned into from a coroutine has none, FJ_NO_OWNER):
 * its spawns are not counted (`pushed`, owner-only), and when it pops one
 * back from its deque it records that (`popped`); a thief that steals such
 * a task counts it, as stolen and as running, before it runs it. Every
 * other spawn (from another thread: a stolen task spawning more; from a
 * coroutine) is counted at once. So a task that its spawner runs itself,
 * the common case, costs no atomic operation on the group. The group is
 * done when no counted task is left and every uncounted task that left
 * the owner's deque other than by the owner's pop was stolen:
 * counted == 0 && stolen == pushed - popped.
 *
 * wait runs the group's tasks from the bottom of its own deque (the newest
 * first, work-first order), then steals the group's tasks from other
 * deques, and parks only when every task of the group left is elsewhere;
 * its processor meanwhile runs workers.
 *
 * Protocols:
 *  Spawn: (1) count the task (or, the owner, record it in `pushed`);
 *   (2) push it (release); (3) light fence; (4) if a worker sleeps and
 *   (5) a processor of the cluster is idle, wake one.
 *  Idle processor (forkjoin_idle, idle.c): after its registration (I1,
 *   called between I2 and I3), and again after it republished `first`
 *   on leaving idle with a thread while another processor is idle (I4,
 *   called in I5): if a worker sleeps, heavy fence, and if a deque holds
 *   a task, wake one. Spawn's (2)-(5) against it: either the spawner sees
 *   `first`, or the processor sees the task. `first` is NULL while a
 *   notifier wakes the top sleeper, even if others are idle; that sleeper
 *   looks again in I5. So no task waits while a worker sleeps and a
 *   processor idles, but a worker is not woken while every processor is
 *   busy.
 *  Worker sleep: (1) under the pool lock, list itself and count itself in
 *   `sleeping`; (2) heavy fence; (3) look at every deque: on work, unlist itself
 *   (or, if a waker unlisted it already, take its permit) and go on; (4)
 *   park until a waker has unlisted it. Spawn's (3)-(4) against sleep's
 *   (1)-(3): either the spawner sees `sleeping` and wakes someone listed, or
 *   the sleeper sees the task: the fences are asymmetric (asym_fence.h), so
 *   a spawn pays a compiler barrier and a worker going to sleep pays a
 *   membarrier.
 *  Wait: (1) publish `waiter`; (2) CAS FJ_WAITING into a state that is not
 *   done; (3) park; look again. Counted task end: one CAS decrements the
 *   count and, when it takes it to 0 under FJ_WAITING, sets FJ_CLAIMED:
 *   that task alone wakes the waiter: it reads `waiter`, unparks it and
 *   clears both flags (its last touch of the group). The waiter never
 *   returns while a flag is set (awake early, by a stray permit, it parks
 *   again under FJ_WAITING alone, and spins under FJ_CLAIMED, whose
 *   unpark may be its last permit), so neither the group nor the waiting
 *   thread can be gone while the claimer reaches them.
 *
 * Invariants:
 *  1. counted = counted tasks not finished; it never goes below 0, and
 *     the group is idle (state 0 but the stolen tally) when wait returns
 *     (both checked in the debug build). Uncounted tasks are in the
 *     owner's deque, or popped by it, or stolen and then counted.
 *  2. A deque is registered in at most one pool slot and stays there
 *     (recycled, never freed), so a thief may read any slot's deque at any
 *     time.
 *  3. A worker is on its pool's sleeper list iff `listed`, and `sleeping`
 *     counts the listed workers (both under the pool lock).
 *  4. A worker parked in a wait is replaced: when it parks, at least one
 *     worker per processor is available (not parked in a wait, not
 *     spare), a spare woken or a worker started if needed. A parked
 *     waiter runs nothing else, and without a replacement the tasks its
 *     thief spawns would have no thread to run them on an idle processor
 *     (no worker asleep for a spawn or an idle processor to wake). Back
 *     from the wait, a worker that finds more workers available than
 *     processors parks as a spare (`spares`, `nspare`, under the pool
 *     lock). Workers never exit: a pool ends with at most one per
 *     processor plus the most that were ever parked in waits at once.
 *     runtime/verify/forkjoin_replace.pml checks the counts with SPIN.
 */
#include "forkjoin.h"

#include "asym_fence.h"
#include "cluster.h"
#include "cache_aligned.h"
#include "invariant.h"
#include "io_wakeup.h"
#include "thread_internal.h"
#include "spinlock.h"

#include <cfa/cluster.h>
#include <cfa/forkjoin.h>
#include <cfa/processor.h>
#include <cfa/runtime.h>
#include <cfa/test_hook.h>
#include <cfa/thread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FJ_WAITING (UINT64_C(1) << 63)

enum {
    FJ_MAX_DEQUES = 4096, /* threads with a deque, per cluster: docs/scheduler.md#tunables */
    FJ_RING_FIRST = 64,   /* records in a new deque: docs/scheduler.md#tunables */
    FJ_IDLE_ROUNDS = 2,   /* stealing rounds before a worker sleeps: docs/scheduler.md#tunables */
};

struct fj_pool;

/* A thread's deque and its place in the pool. */
struct fj_home {
    struct fj_deque deque;
    struct fj_pool *pool;
    struct fj_home *next_free;
    uint64_t        seed;   /* victim choice (xorshift) */
    bool            worker; /* the deque of one of the pool's workers */
};

struct fj_worker {
    struct fj_pool   *pool;
    struct fj_worker *next_sleeper;
    bool              listed;  /* on the sleeper list (pool lock) */
    bool              spare;   /* on the spare list (pool lock) */
    struct cfa_thread thread;
};

struct fj_pool {
    struct cfa_cluster *cluster;
    struct fj_pool     *next;
    _Atomic unsigned    ndeques;                 /* slots used */
    _Atomic(struct fj_home *) homes[FJ_MAX_DEQUES];
    _Atomic int         lock;                    /* below, and registration */
    struct fj_home     *free;                    /* deques of halted threads */
    struct fj_worker   *sleepers;
    struct fj_worker   *spares;                  /* invariant 4 */
    _Atomic unsigned    sleeping;
    _Atomic unsigned    nworkers;
    _Atomic unsigned    nspare;                  /* on `spares` */
    _Atomic unsigned long spawn_wakes, idle_wakes; /* CFA_STATS: workers woken by spawns, by idle processors */
    _Atomic unsigned long replaced, started;       /* CFA_STATS: parked waiters replaced; by a new worker */
    /* Workers parked in a task group's wait. Written at every such park,
     * so on a line of its own: every spawn reads `sleeping`. */
    _Atomic unsigned    waiting __attribute__((aligned(64)));
};

static _Atomic int             pools_lock;
static _Atomic(struct fj_pool *) pools;

/* --- deques -------------------------------------------------------------- */

static struct fj_ring *ring_new(int64_t capacity)
{
    struct fj_ring *r = malloc(sizeof *r + (size_t)capacity * sizeof r->slot[0]);
    if (r) {
        r->mask = capacity - 1;
        r->older = NULL;
    }
    return r;
}

bool fj_deque_init(struct fj_deque *d)
{
    struct fj_ring *r = ring_new(FJ_RING_FIRST);
    if (!r)
        return false;
    atomic_init(&d->top, 0);
    atomic_init(&d->bottom, 0);
    atomic_init(&d->ring, r);
    return true;
}

struct fj_ring *fj_deque_grow(struct fj_deque *d, struct fj_ring *r, int64_t top, int64_t bottom)
{
    struct fj_ring *bigger = ring_new(2 * (r->mask + 1));
    if (!bigger)
        return NULL;
    for (int64_t i = top; i < bottom; i++) {
        struct fj_task t;
        fj_slot_load(r, i, &t);
        fj_slot_store(bigger, i, &t);
    }
    bigger->older = r; /* invariant 2 of fj_deque.h: thieves may still read r */
    atomic_store_explicit(&d->ring, bigger, memory_order_release);
    return bigger;
}

/* --- pools and workers --------------------------------------------------- */

/* cl's pool, or NULL if it has none yet. */
static struct fj_pool *pool_find(struct cfa_cluster *cl)
{
    for (struct fj_pool *p = atomic_load_explicit(&pools, memory_order_acquire); p; p = p->next)
        if (p->cluster == cl)
            return p;
    return NULL;
}

static struct fj_pool *pool_of(struct cfa_cluster *cl)
{
    struct fj_pool *found = pool_find(cl);
    if (found)
        return found;
    spin_lock(&pools_lock);
    struct fj_pool *p = atomic_load_explicit(&pools, memory_order_relaxed);
    while (p && p->cluster != cl)
        p = p->next;
    if (!p && (p = cache_aligned_zalloc(sizeof *p))) {
        p->cluster = cl;
        p->next = atomic_load_explicit(&pools, memory_order_relaxed);
        atomic_store_explicit(&pools, p, memory_order_release);
    }
    spin_unlock(&pools_lock);
    return p;
}

static void run_task(struct fj_task *t, bool stolen);
static bool steal_some(struct fj_pool *pool, struct fj_home *self, cfa_task_group *only, struct fj_task *t);
static bool pool_has_work(struct fj_pool *pool);
static struct fj_home *home_of(struct cfa_thread *t);

/* Wakes a sleeping worker, if any; counts it in *woken. */
static void wake_one(struct fj_pool *pool, _Atomic unsigned long *woken)
{
    spin_lock(&pool->lock);
    struct fj_worker *w = pool->sleepers;
    if (w) {
        pool->sleepers = w->next_sleeper;
        w->listed = false;
        atomic_fetch_sub_explicit(&pool->sleeping, 1, memory_order_relaxed);
    }
    spin_unlock(&pool->lock);
    if (w) {
        atomic_fetch_add_explicit(woken, 1, memory_order_relaxed);
        cfa_unpark(&w->thread);
    }
}

/* Worker sleep, steps (1)-(4) of the file comment. */
static void worker_sleep(struct fj_worker *w)
{
    struct fj_pool *pool = w->pool;
    spin_lock(&pool->lock);
    w->next_sleeper = pool->sleepers;
    pool->sleepers = w;
    w->listed = true;
    atomic_fetch_add_explicit(&pool->sleeping, 1, memory_order_relaxed);
    spin_unlock(&pool->lock);
    asym_fence_heavy(); /* against spawn's light fence, step (3) */
    if (pool_has_work(pool)) {
        spin_lock(&pool->lock);
        bool still = w->listed;
        if (still) {
            struct fj_worker **link = &pool->sleepers;
            while (*link != w)
                link = &(*link)->next_sleeper;
            *link = w->next_sleeper;
            w->listed = false;
            atomic_fetch_sub_explicit(&pool->sleeping, 1, memory_order_relaxed);
        }
        spin_unlock(&pool->lock);
        if (still)
            return;
        /* a waker unlisted us: its unpark is ours to take */
    }
    for (;;) {
        cfa_park_for("fork-join worker: idle");
        spin_lock(&pool->lock);
        bool listed = w->listed;
        spin_unlock(&pool->lock);
        if (!listed)
            return;
    }
}

/* Spawn, step (5): a worker sleeps; wake one only if a processor is idle
 * to run it. With every processor busy a woken worker would only queue
 * behind the running threads and, at their next yield, take a processor
 * from a thread in the middle of its tasks, to run a stolen one that its
 * waiter then waits for, away from the cache that holds its data. */
static __attribute__((noinline)) void wake_for_spawn(struct fj_pool *pool)
{
    if (atomic_load_explicit(&pool->cluster->state->idle.first, memory_order_relaxed))
        wake_one(pool, &pool->spawn_wakes);
}

/* The idle processor's side of spawn's (3)-(5): it stored `first` (I1,
 * or I4 before I5) before this; the heavy fence pairs with spawn's light
 * one, so a spawn either sees `first` or its task is seen here. Paid only
 * while a worker sleeps, and spawns, far more frequent, pay nothing. */
void forkjoin_idle(struct cfa_cluster *cl)
{
    struct fj_pool *p = pool_find(cl);
    if (p && atomic_load_explicit(&p->sleeping, memory_order_relaxed)) {
        asym_fence_heavy();
        if (pool_has_work(p))
            wake_one(p, &p->idle_wakes);
    }
}

void forkjoin_counts(unsigned long *spawn_wakes, unsigned long *idle_wakes, unsigned long *replaced,
                     unsigned long *started)
{
    *spawn_wakes = *idle_wakes = *replaced = *started = 0;
    for (struct fj_pool *p = atomic_load_explicit(&pools, memory_order_acquire); p; p = p->next) {
        *spawn_wakes += atomic_load_explicit(&p->spawn_wakes, memory_order_relaxed);
        *idle_wakes += atomic_load_explicit(&p->idle_wakes, memory_order_relaxed);
        *replaced += atomic_load_explicit(&p->replaced, memory_order_relaxed);
        *started += atomic_load_explicit(&p->started, memory_order_relaxed);
    }
}

/* Workers that may take a processor: running, ready, or asleep where a
 * spawn or an idle processor wakes them; not parked in a wait, not spare. */
static int available_workers(struct fj_pool *pool)
{
    return (int)atomic_load_explicit(&pool->nworkers, memory_order_relaxed) -
           (int)atomic_load_explicit(&pool->waiting, memory_order_relaxed) -
           (int)atomic_load_explicit(&pool->nspare, memory_order_relaxed);
}

/* Invariant 4, a worker back from a wait: the worker beyond one per
 * processor that notices first parks as a spare, where only a worker
 * parking in a wait wakes it. Not among the sleepers: every spawn looks
 * at `sleeping`, and one that sees a sleeper pays for a look at the idle
 * processors. The decision is under the pool lock, where a parking
 * waiter counts itself, so the spares never leave fewer available
 * workers than processors. */
static void retire_if_surplus(struct fj_worker *w)
{
    struct fj_pool *pool = w->pool;
    int processors = (int)cfa_cluster_processor_count(pool->cluster);
    if (available_workers(pool) <= processors)
        return;
    spin_lock(&pool->lock);
    bool surplus = available_workers(pool) > processors;
    if (surplus) {
        w->next_sleeper = pool->spares;
        pool->spares = w;
        w->spare = true;
        atomic_fetch_add_explicit(&pool->nspare, 1, memory_order_relaxed);
    }
    spin_unlock(&pool->lock);
    while (surplus) {
        cfa_park_for("fork-join worker: spare");
        spin_lock(&pool->lock);
        surplus = w->spare;
        spin_unlock(&pool->lock);
    }
}

static void worker_main(void *object)
{
    struct fj_worker *w = object;
    struct fj_home *home = home_of(&w->thread);
    if (!home)
        return; /* out of memory: the other threads do the work */
    home->worker = true;
    for (unsigned idle = 0;;) {
        struct fj_task t;
        if (fj_deque_pop(&home->deque, NULL, &t)) {
            run_task(&t, false);
        } else if (steal_some(w->pool, home, NULL, &t)) {
            run_task(&t, true);
            idle = 0;
            retire_if_surplus(w);
            cfa_yield(); /* take turns with the cluster's other threads */
        } else if (++idle < FJ_IDLE_ROUNDS) {
            cfa_yield();
        } else {
            idle = 0;
            worker_sleep(w);
        }
    }
}

/* A worker thread for pool (counted in nworkers by the caller); false
 * when out of memory. */
static bool start_worker(struct fj_pool *pool)
{
    struct fj_worker *w = cache_aligned_zalloc(sizeof *w);
    if (!w)
        return false;
    w->pool = pool;
    cfa_thread_start(&w->thread, worker_main, w, "forkjoin_worker", 0);
    return true;
}

/* One worker per processor of the pool's cluster. */
static void ensure_workers(struct fj_pool *pool)
{
    unsigned want = cfa_cluster_processor_count(pool->cluster);
    if (atomic_load_explicit(&pool->nworkers, memory_order_relaxed) >= want)
        return;
    spin_lock(&pool->lock);
    unsigned have = atomic_load_explicit(&pool->nworkers, memory_order_relaxed);
    unsigned start = want > have ? want - have : 0;
    atomic_store_explicit(&pool->nworkers, have + start, memory_order_relaxed);
    spin_unlock(&pool->lock);
    for (unsigned i = 0; i < start; i++)
        if (!start_worker(pool)) {
            atomic_fetch_sub_explicit(&pool->nworkers, start - i, memory_order_relaxed);
            return;
        }
}

/* Invariant 4, a worker about to park in a wait: counted in `waiting`,
 * and replaced by a spare or a new worker if fewer workers than
 * processors would be left available. */
static void replace_waiter(struct fj_pool *pool)
{
    int processors = (int)cfa_cluster_processor_count(pool->cluster);
    spin_lock(&pool->lock);
    atomic_fetch_add_explicit(&pool->waiting, 1, memory_order_relaxed);
    struct fj_worker *w = NULL;
    bool start = false;
    if (available_workers(pool) < processors) {
        if ((w = pool->spares)) {
            pool->spares = w->next_sleeper;
            w->spare = false;
            atomic_fetch_sub_explicit(&pool->nspare, 1, memory_order_relaxed);
        } else {
            start = true;
            atomic_fetch_add_explicit(&pool->nworkers, 1, memory_order_relaxed);
        }
    }
    spin_unlock(&pool->lock);
    if (w || start)
        atomic_fetch_add_explicit(&pool->replaced, 1, memory_order_relaxed);
    if (w) {
        cfa_unpark(&w->thread);
    } else if (start) {
        if (start_worker(pool))
            atomic_fetch_add_explicit(&pool->started, 1, memory_order_relaxed);
        else
            atomic_fetch_sub_explicit(&pool->nworkers, 1, memory_order_relaxed);
    }
}

/* The caller's deque, set up at its first spawn. NULL: none to be had. */
static __attribute__((noinline)) struct fj_home *home_attach(struct cfa_thread *t)
{
    struct fj_pool *pool = pool_of(t->cluster);
    if (!pool)
        return NULL;
    ensure_workers(pool);
    spin_lock(&pool->lock);
    struct fj_home *h = pool->free;
    if (h) {
        pool->free = h->next_free;
        h->worker = false;
    } else {
        unsigned slot = atomic_load_explicit(&pool->ndeques, memory_order_relaxed);
        if (slot < FJ_MAX_DEQUES && (h = cache_aligned_zalloc(sizeof *h))) {
            if (fj_deque_init(&h->deque)) {
                h->pool = pool;
                h->seed = (uintptr_t)h | 1;
                atomic_store_explicit(&pool->homes[slot], h, memory_order_release);
                atomic_store_explicit(&pool->ndeques, slot + 1, memory_order_release);
            } else {
                free(h);
                h = NULL;
            }
        }
    }
    spin_unlock(&pool->lock);
    t->forkjoin = h;
    return h;
}

static inline struct fj_home *home_of(struct cfa_thread *t)
{
    struct fj_home *h = t->forkjoin;
    return __builtin_expect(h != NULL, 1) ? h : home_attach(t);
}

void forkjoin_fork_child(struct cfa_thread *survivor)
{
    atomic_store(&pools_lock, 0);
    atomic_store(&pools, NULL);
    if (survivor)
        survivor->forkjoin = NULL;
}

void forkjoin_thread_halted(struct cfa_thread *t)
{
    struct fj_home *h = t->forkjoin;
    t->forkjoin = NULL;
    struct fj_pool *pool = h->pool;
    spin_lock(&pool->lock);
    h->next_free = pool->free;
    pool->free = h;
    spin_unlock(&pool->lock);
}

bool fj_own_deque_empty(void)
{
    struct cfa_thread *self = this_thread();
    struct fj_home *h = self ? self->forkjoin : NULL;
    return !h || !fj_deque_has_work(&h->deque);
}

unsigned fj_processors(void)
{
    struct cfa_thread *self = this_thread();
    return self ? cfa_cluster_processor_count(self->cluster) : 0;
}

/* --- stealing ------------------------------------------------------------ */

static bool pool_has_work(struct fj_pool *pool)
{
    unsigned n = atomic_load_explicit(&pool->ndeques, memory_order_acquire);
    for (unsigned i = 0; i < n; i++) {
        struct fj_home *h = atomic_load_explicit(&pool->homes[i], memory_order_acquire);
        if (h && fj_deque_has_work(&h->deque))
            return true;
    }
    return false;
}

/* One round over the pool's deques from a random one; `only`: take only
 * that group's tasks. */
static bool steal_some(struct fj_pool *pool, struct fj_home *self, cfa_task_group *only, struct fj_task *t)
{
    unsigned n = atomic_load_explicit(&pool->ndeques, memory_order_acquire);
    if (n <= 1)
        return false;
    uint64_t x = self->seed;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    self->seed = x;
    unsigned start = (unsigned)(x % n);
    for (unsigned k = 0; k < n; k++) {
        unsigned i = start + k < n ? start + k : start + k - n;
        struct fj_home *h = atomic_load_explicit(&pool->homes[i], memory_order_acquire);
        if (h && h != self && fj_deque_steal(&h->deque, only, t))
            return true;
    }
    return false;
}

/* --- tasks and groups ---------------------------------------------------- */

#define FJ_COUNT_MASK ((UINT64_C(1) << 32) - 1)
#define FJ_STOLEN_ONE (UINT64_C(1) << 32)
#define FJ_CLAIMED    (UINT64_C(1) << 62) /* a task took on waking the waiter */
#define FJ_FLAGS      (FJ_WAITING | FJ_CLAIMED)
/* The owner of a group first spawned into from a coroutine: every spawn
 * into it is counted. */
#define FJ_NO_OWNER   ((struct cfa_thread *)1)

static inline uint64_t counted_of(uint64_t state) { return state & FJ_COUNT_MASK; }
static inline uint64_t stolen_of(uint64_t state) { return (state & ~FJ_FLAGS) >> 32; }

/* Every task of g has finished (the owner's own bookkeeping included). */
static inline bool group_done(const cfa_task_group *g, uint64_t state)
{
    return counted_of(state) == 0 && stolen_of(state) == g->pushed - g->popped;
}

/* A counted task of g has finished: the decrement of the wait protocol.
 * The one that ends the count under FJ_WAITING claims the wake-up. */
static void counted_done(cfa_task_group *g)
{
    uint64_t old = __atomic_load_n(&g->state, __ATOMIC_RELAXED), next;
    bool wake;
    do {
        cfa_assert("fork-join: a group never finishes more tasks than it counted", counted_of(old) != 0);
        wake = counted_of(old) == 1 && (old & FJ_FLAGS) == FJ_WAITING;
        next = (old - 1) | (wake ? FJ_CLAIMED : 0);
    } while (!__atomic_compare_exchange_n(&g->state, &old, next, true, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
    if (wake) {
        struct cfa_thread *waiter = g->waiter; /* the waiter stays while FJ_CLAIMED is set */
        if (cfa_test_hook)
            cfa_test_hook(CFA_STEP_WAKE_CLAIMED);
        cfa_unpark(waiter);
        __atomic_fetch_and(&g->state, ~FJ_FLAGS, __ATOMIC_RELEASE); /* last touch of g */
    }
}

/* Runs a task taken from a deque: popped by the deque's owner (an
 * uncounted task is then the owner's own, recorded in `popped`), or stolen
 * (`stolen`: an uncounted task gets counted by the thief first). */
static void run_task(struct fj_task *t, bool stolen)
{
    cfa_task_group *g = fj_task_group(t);
    bool counted = t->group & FJ_COUNTED;
    if (!counted) {
        if (stolen)
            __atomic_fetch_add(&g->state, FJ_STOLEN_ONE | 1, __ATOMIC_ACQ_REL);
        else
            g->popped++;
    }
    t->run(t);
    if (counted || stolen)
        counted_done(g);
}

/* Spawn, steps (1)-(4) of the file comment. */
void fj_spawn(void (*run)(struct fj_task *task), cfa_task_group *g, uintptr_t a, int64_t b, int64_t c)
{
    struct fj_task task = { .run = run, .group = (uintptr_t)g, .a = a, .b = b, .c = c };
    struct cfa_thread *self = this_thread();
    struct fj_home *h = self ? home_of(self) : NULL;
    if (__builtin_expect(!h, 0)) { /* nowhere to queue it: now, in the caller */
        run(&task);
        return;
    }
    /* A group's first spawn comes before any other thread can reach it
     * (the tasks it spawns are how they do), so a plain store claims it:
     * for the spawner, or, from a coroutine (whose waiter may be any
     * thread), for nobody, so that no later spawner (a worker running one
     * of its tasks) takes `pushed` and `popped`, which only the waiter
     * reads. */
    struct cfa_thread *owner = __atomic_load_n(&g->owner, __ATOMIC_RELAXED);
    if (!owner)
        __atomic_store_n(&g->owner, owner = self->current == &self->self ? self : FJ_NO_OWNER, __ATOMIC_RELAXED);
    bool counted = owner != self || self->current != &self->self;
    if (counted) {
        task.group |= FJ_COUNTED;
        __atomic_fetch_add(&g->state, 1, __ATOMIC_RELAXED);
    } else {
        g->pushed++;
    }
    if (__builtin_expect(!fj_deque_push(&h->deque, &task), 0)) { /* out of memory: run it here */
        run_task(&task, false);
        return;
    }
    asym_fence_light();
    if (atomic_load_explicit(&h->pool->sleeping, memory_order_relaxed))
        wake_for_spawn(h->pool);
}

static void run_call(struct fj_task *t)
{
    ((void (*)(void *))t->a)((void *)(uintptr_t)t->b);
}

void cfa_task_group_init(cfa_task_group *g)
{
    memset(g, 0, sizeof *g);
}

void cfa_task_spawn(cfa_task_group *g, void (*fn)(void *arg), void *arg)
{
    fj_spawn(run_call, g, (uintptr_t)fn, (int64_t)(uintptr_t)arg, 0);
}

/* Wait's slow path: steps (1)-(3) of the file comment (nothing when the
 * state moved meanwhile: the caller looks again). A worker that parks is
 * replaced first (invariant 4). */
static __attribute__((noinline)) void wait_parked(cfa_task_group *g, struct cfa_thread *self, struct fj_home *h,
                                                  uint64_t seen)
{
    g->waiter = self;
    if (!__atomic_compare_exchange_n(&g->state, &seen, seen | FJ_WAITING, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
        return;
    if (!h || !h->worker) {
        if (h)
            ensure_workers(h->pool);
        cfa_park_for("fork-join wait");
        return;
    }
    struct fj_pool *pool = h->pool;
    replace_waiter(pool);
    cfa_park_for("fork-join wait");
    atomic_fetch_sub_explicit(&pool->waiting, 1, memory_order_relaxed);
}

void cfa_task_group_wait(cfa_task_group *g)
{
    struct cfa_thread *self = this_thread();
    struct cfa_thread *owner = __atomic_load_n(&g->owner, __ATOMIC_RELAXED);
    if (owner && owner != FJ_NO_OWNER && owner != self)
        cfa_fatal("wait on a task group from a thread other than the one that spawned into it first");
    uint64_t s = __atomic_load_n(&g->state, __ATOMIC_ACQUIRE);
    if (!group_done(g, s)) {
        if (!self) { /* a kernel thread: every task of g runs elsewhere */
            while (!group_done(g, __atomic_load_n(&g->state, __ATOMIC_ACQUIRE)))
                sched_yield();
        } else {
            struct fj_home *h = home_of(self);
            struct fj_task t;
            unsigned spins = 0;
            while (!group_done(g, s = __atomic_load_n(&g->state, __ATOMIC_ACQUIRE)) || (s & FJ_FLAGS)) {
                if (s & FJ_CLAIMED) { /* the claimer is unparking us: a few instructions */
                    wakeup_pause(&spins);
                } else if (s & FJ_FLAGS) { /* awake early (a stray permit): ours is still to come */
                    cfa_park_for("fork-join wait");
                } else if (h && fj_deque_pop(&h->deque, g, &t)) {
                    run_task(&t, false);
                } else if (h && steal_some(h->pool, h, g, &t)) {
                    run_task(&t, true);
                } else {
                    wait_parked(g, self, h, s);
                }
            }
        }
    }
    cfa_assert("fork-join: nothing of a group is left when wait returns",
               __atomic_load_n(&g->state, __ATOMIC_RELAXED) == (stolen_of(s) << 32) && !(s & FJ_FLAGS));
    cfa_task_group_init(g); /* no task of g is left to touch it: ready for reuse */
}
