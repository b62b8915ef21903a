/* ready_queue.c: the sharded helping ready queue. See ready_queue.h for the
 * structure and its invariants; this file has the algorithms:
 *
 *   push   a random lane of the pushing processor (or, for a remote hint or
 *          a push from outside the cluster, of the thread's last lane's
 *          owner), retrying another lane when a try-lock fails;
 *   pop    1. helping: every other pop picks a target lane at random,
 *             preferring its own cache instance; the following pop takes
 *             the target's head if it has waited HELP_BIAS times longer
 *             than the local lanes' expected wait, and HELP_FLOOR_TSC;
 *          2. the older of the processor's own lanes;
 *          3. stealing: a few random lanes, the head and half the backlog;
 *   search every lane under its lock (idle processors only);
 *   resize under the writer side of the resizing lock (resize_lock.h).
 *
 * Compile with -DCFA_NO_HELPING for the classic work-stealing baseline
 * (no step 1) that the benchmarks compare against.
 */
#include "ready_queue.h"
#include "cluster.h"
#include "idle.h"
#include "invariant.h"
#include "processor.h"
#include "resize_lock.h"
#include "thread_internal.h"
#include "topology.h"

#include <cfa/runtime.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Tunables: what each trades off and how its value was chosen is in
 * docs/scheduler.md, "Tunables". The thesis finds that only their order of
 * magnitude matters (4.4, 4.4.2). */
enum {
    HELP_ONE_IN = 8,            /* docs/scheduler.md#tunables */
    HELP_ONE_IN_MAX = 256,      /* docs/scheduler.md#tunables */
    HELP_BIAS = 8,              /* docs/scheduler.md#tunables */
    HELP_FLOOR_TSC = 1u << 18,  /* docs/scheduler.md#tunables */
    CACHE_REDRAWS = 2,          /* docs/scheduler.md#tunables */
    EMA_SHIFT = 3,              /* docs/scheduler.md#tunables */
    STEAL_TRIES = 8,            /* docs/scheduler.md#tunables */
    STEAL_MOVE_MAX = 8,         /* docs/scheduler.md#tunables */
};
#define NO_TARGET UINT32_MAX

/* The steal grace in TSC cycles: docs/scheduler.md#tunables. A variable
 * only so that a test can stretch it (cfa_test_steal_grace) while the
 * processors read it: relaxed, a plain load. */
enum { STEAL_GRACE_TSC = 8192 };
static _Atomic uint64_t steal_grace_tsc = STEAL_GRACE_TSC;

static inline uint64_t steal_grace(void)
{
    return atomic_load_explicit(&steal_grace_tsc, memory_order_relaxed);
}

void cfa_test_steal_grace(unsigned long long tsc)
{
    atomic_store_explicit(&steal_grace_tsc, tsc ? tsc : STEAL_GRACE_TSC, memory_order_relaxed);
}

static inline uint64_t next_random(struct ready_local *me)
{
    uint64_t x = me->rng;   /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    me->rng = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* A random number below n without a division (Lemire's reduction): a
 * 64-bit div costs 40 cycles, and pop draws several. */
static inline unsigned random_below(struct ready_local *me, unsigned n)
{
    return (unsigned)(((next_random(me) >> 32) * (uint64_t)n) >> 32);
}

static inline uint64_t now_tsc(void) { return __builtin_ia32_rdtsc(); }

/* ---- one lane ---------------------------------------------------------- */

/* The debug build records which kernel thread holds a lane's lock, and
 * checks it where the lane changes. Called right after taking the lock
 * and right before releasing it. */
static inline void lane_held(struct lane *l)
{
    CFA_DEBUG_ONLY(l->holder = debug_kthread());
}

static inline void lane_releasing(struct lane *l)
{
    cfa_assert("lane lock released by its holder", l->holder == debug_kthread());
    CFA_DEBUG_ONLY(l->holder = NULL);
}

static inline struct cfa_thread *lane_thread(struct cfa_qlink *link)
{
    return cfa_queue_entry(link, struct cfa_thread, link);
}

/* A lane's head_stamp is its head's ready_stamp, 0 exactly when empty;
 * its len, 0 exactly then. */
static inline void lane_check_stamps(const struct lane *l)
{
    cfa_assert("lane len counts its threads (0 exactly when empty)",
               (l->len == 0) == cfa_queue_empty(&l->threads));
    cfa_assert("lane head_stamp is its head's ready stamp (0 when empty)",
               !cfa_queue_empty(&l->threads)
                   ? l->head_stamp == lane_thread(cfa_queue_peek(&l->threads))->ready_stamp && l->head_stamp != 0
                   : l->head_stamp == 0);
}

static inline void hint_store(struct ready_queue *q, unsigned i, struct lane *l)
{
    atomic_store_explicit(&q->hints[i].stamp, l->head_stamp, memory_order_relaxed);
    atomic_store_explicit(&q->hints[i].avg_wait, l->avg_wait, memory_order_relaxed);
}

static inline void lane_append(struct lane *l, struct cfa_thread *t)
{
    cfa_assert("lane lock held by the pusher", l->holder == debug_kthread());
    cfa_assert("a ready thread's stamp is not 0 (0 marks an empty lane)", t->ready_stamp != 0);
    if (l->threads.tail)
        lane_thread(l->threads.tail)->next_ready_stamp = t->ready_stamp;
    else
        l->head_stamp = t->ready_stamp;
    cfa_queue_push_back(&l->threads, &t->link); /* checks: t is in no queue */
    l->len++;
    lane_check_stamps(l);
}

static inline struct cfa_thread *lane_take_head(struct lane *l, uint64_t now)
{
    cfa_assert("lane lock held by the popper", l->holder == debug_kthread());
    lane_check_stamps(l);
    struct cfa_qlink *link = cfa_queue_pop_front(&l->threads);
    if (!link)
        return NULL;
    struct cfa_thread *t = lane_thread(link);
    l->len--;
    l->head_stamp = cfa_queue_empty(&l->threads) ? 0 : t->next_ready_stamp;
    int64_t wait = (int64_t)(now - t->ready_stamp);
    if (wait < 0)
        wait = 0;
    l->avg_wait += (wait - (int64_t)l->avg_wait) >> EMA_SHIFT;
    return t;
}

/* Lane i's head, if its lock is free; with `moving`, also up to
 * STEAL_MOVE_MAX threads behind it, half of them, taken into *moving. */
static struct cfa_thread *lane_take(struct ready_queue *q, unsigned i, uint64_t now, struct cfa_queue *moving)
{
    if (atomic_load_explicit(&q->hints[i].stamp, memory_order_relaxed) == 0)
        return NULL; /* looks empty: not worth the lock */
    struct lane *l = &q->lanes[i];
    if (!spin_try_lock(&l->lock))
        return NULL;
    lane_held(l);
    struct cfa_thread *t = lane_take_head(l, now);
    for (unsigned n = !moving ? 0 : l->len / 2 < STEAL_MOVE_MAX ? l->len / 2 : STEAL_MOVE_MAX; n; n--)
        cfa_queue_push_back(moving, &lane_take_head(l, now)->link);
    hint_store(q, i, l);
    lane_releasing(l);
    spin_unlock(&l->lock);
    if (t)
        t->last_lane = i;
    return t;
}

static inline struct cfa_thread *lane_try_pop(struct ready_queue *q, unsigned i, uint64_t now)
{
    return lane_take(q, i, now, NULL);
}

#ifndef CFA_NO_HELPING
/* The wait a thread at the head of lane i can expect: its head's age so
 * far averaged with the lane's history; 0 for an empty lane. */
static inline uint64_t expected_wait(struct ready_queue *q, unsigned i, uint64_t now)
{
    uint64_t stamp = atomic_load_explicit(&q->hints[i].stamp, memory_order_relaxed);
    if (stamp == 0)
        return 0;
    uint64_t age = now > stamp ? now - stamp : 0;
    return (age + atomic_load_explicit(&q->hints[i].avg_wait, memory_order_relaxed)) / 2;
}
#endif

/* Whether lane i's head may be taken by another processor: made ready at
 * least the steal grace ago. */
static inline bool past_grace(struct ready_queue *q, unsigned i, uint64_t now)
{
    uint64_t stamp = atomic_load_explicit(&q->hints[i].stamp, memory_order_relaxed);
    return stamp && now - stamp >= steal_grace() && now > stamp;
}

/* ---- processors' positions --------------------------------------------- */

static inline unsigned lane_base(const struct ready_local *me) { return me->index * SHARD_FACTOR; }

/* Records the cache instance of the CPU this processor runs on, writing
 * the shared map only when it changed (thesis 4.4.3). */
static inline void refresh_cache(struct ready_queue *q, struct ready_local *me)
{
    if (!topology_has_several_caches())
        return;
    int cpu = topology_cpu_of(me->index);
    if (cpu == me->cpu)
        return;
    me->cpu = cpu;
    unsigned cache = topology_cache_of(cpu);
    if (cache == me->cache)
        return;
    me->cache = cache;
    for (unsigned s = 0; s < SHARD_FACTOR; s++)
        atomic_store_explicit(&q->hints[lane_base(me) + s].cache, cache, memory_order_relaxed);
}

void ready_record_cache(struct cfa_processor_state *p)
{
    ready_enter(p);
    refresh_cache(&p->cluster->state->ready, &p->rq);
    ready_leave(p);
}

static inline bool in_my_cache(struct ready_queue *q, struct ready_local *me, unsigned lane)
{
    return atomic_load_explicit(&q->hints[lane].cache, memory_order_relaxed) == me->cache;
}

/* A random lane of another processor, redrawn up to CACHE_REDRAWS times
 * while it is in another cache instance (thesis 4.4.3: at scale most
 * lanes are remote, and a thread taken from the own instance brings its
 * working set along). Helping and stealing both draw this way. Requires
 * q->count > SHARD_FACTOR. */
static unsigned remote_lane(struct ready_queue *q, struct ready_local *me)
{
    unsigned r = random_below(me, q->count - SHARD_FACTOR);
    return r >= lane_base(me) ? r + SHARD_FACTOR : r;
}

static unsigned cache_preferring_remote_lane(struct ready_queue *q, struct ready_local *me)
{
    unsigned lane = remote_lane(q, me);
    if (topology_has_several_caches())
        for (int i = 0; i < CACHE_REDRAWS && !in_my_cache(q, me, lane); i++)
            lane = remote_lane(q, me);
    return lane;
}

#ifndef CFA_NO_HELPING
/* A helping target (thesis 4.4: helping looks at remote lanes only).
 * NO_TARGET when this processor owns every lane. */
static unsigned pick_target(struct ready_queue *q, struct ready_local *me)
{
    if (q->count <= SHARD_FACTOR)
        return NO_TARGET;
    unsigned target = cache_preferring_remote_lane(q, me);
    if (in_my_cache(q, me, target)) STAT_ADD(me->stats.target_same_cache, 1);
    else STAT_ADD(me->stats.target_other_cache, 1);
    return target;
}

/* The floor's exception: by their history (the lanes' average waits, not
 * their heads' ages), target's threads wait longer than the steal grace
 * while every one of the helper's own lanes waits less than the grace
 * divided by HELP_BIAS. A vCPU stall ages heads, not histories; a lane
 * whose threads keep queueing beside a helper whose threads barely wait
 * is a standing imbalance (a processor with many threads beside one with
 * few), helped at once (docs/scheduler.md, "Pop", step 1). Two busy
 * processors fail the helper's side, whatever their waits. */
static inline bool habitually_waits(struct ready_queue *q, const struct ready_local *me, unsigned target)
{
    uint64_t theirs = atomic_load_explicit(&q->hints[target].avg_wait, memory_order_relaxed);
    if (theirs <= steal_grace())
        return false;
    for (unsigned s = 0; s < SHARD_FACTOR; s++)
        if (atomic_load_explicit(&q->hints[lane_base(me) + s].avg_wait, memory_order_relaxed) * HELP_BIAS >= steal_grace())
            return false;
    return true;
}

static bool worth_helping(struct ready_queue *q, struct ready_local *me, unsigned target, uint64_t now)
{
    unsigned base = lane_base(me);
    if (target - base < SHARD_FACTOR)
        return false; /* our own lane: step 2 covers it */
    uint64_t theirs = expected_wait(q, target, now);
    if (theirs == 0)
        return false;
    uint64_t ours = 0;
    for (unsigned s = 0; s < SHARD_FACTOR; s++) {
        uint64_t w = expected_wait(q, base + s, now);
        if (w > ours)
            ours = w;
    }
    if (theirs <= ours * HELP_BIAS)
        return false;
    return theirs > HELP_FLOOR_TSC || habitually_waits(q, me, target);
}

/* cfa/testing.h: worth_helping on a two-processor queue whose hints say
 * what the arguments say (ages and averages in TSC cycles; an age of 0:
 * the lane is empty), from the first processor's side, target a lane of
 * the second. */
bool cfa_test_worth_helping(unsigned long long target_age, unsigned long long target_avg,
                            unsigned long long own_age, unsigned long long own_avg)
{
    struct lane_hint hints[2 * SHARD_FACTOR] __attribute__((aligned(HINTS_ALIGN))) = { 0 };
    struct ready_queue q = { .hints = hints, .count = 2 * SHARD_FACTOR };
    struct ready_local me = { .index = 0 };
    uint64_t now = UINT64_C(1) << 50;
    for (unsigned s = 0; s < SHARD_FACTOR; s++) {
        atomic_store(&hints[s].stamp, own_age ? now - own_age : 0);
        atomic_store(&hints[s].avg_wait, own_avg);
    }
    atomic_store(&hints[SHARD_FACTOR].stamp, target_age ? now - target_age : 0);
    atomic_store(&hints[SHARD_FACTOR].avg_wait, target_avg);
    return worth_helping(&q, &me, SHARD_FACTOR, now);
}
#endif

/* ---- push and pop ------------------------------------------------------ */

static unsigned push_lane(struct ready_queue *q, struct cfa_thread *t, struct ready_local *me,
                          enum push_where where)
{
    if (me && where == PUSH_LOCAL)
        return lane_base(me) + random_below(me, SHARD_FACTOR);
    unsigned r = (unsigned)(me ? next_random(me) : (uint64_t)t->ready_stamp * 0x9E3779B97F4A7C15ULL >> 7);
    if (t->last_lane < q->count)
        return t->last_lane - t->last_lane % SHARD_FACTOR + r % SHARD_FACTOR;
    return r % q->count;
}

/* After a push (step N2 of idle.h): wake an idle processor, or count the
 * push while this processor holds its notifications (ready_hold_notify).
 * `me` is NULL for a push from outside the cluster's processors. */
static inline void notify_pushed(struct ready_local *me, struct cfa_cluster_state *cs)
{
    if (me && me->holding_notify)
        me->held_pushes++;
    else
        idle_notify(&cs->idle);
}

void ready_push(struct cfa_thread *t, enum push_where where)
{
    struct cfa_cluster_state *cs = t->cluster->state;
    struct ready_queue *q = &cs->ready;
    struct cfa_processor_state *p = this_processor();
    struct ready_local *me = p && p->cluster->state == cs ? &p->rq : NULL;

    if (me)
        ready_enter(p);
    else
        ready_queue_enter_external(q);
    cfa_assert("resize lock: lanes are pushed to under a reader flag",
               atomic_load_explicit(me ? &p->rq.read_lock : &q->external_lock, memory_order_relaxed) == 1);
    unsigned i = push_lane(q, t, me, where);
    while (!spin_try_lock(&q->lanes[i].lock)) {
        /* Contended: any lane will do, fairness comes from the stamps. */
        i = (unsigned)((me ? next_random(me) : (uint64_t)i * 7 + 1) % q->count);
    }
    struct lane *l = &q->lanes[i];
    lane_held(l);
    DEBUG_FAULT(FAULT_LANE_HOLDER, l->holder = NULL);
    lane_append(l, t);
    DEBUG_FAULT(FAULT_LANE_STAMP, l->head_stamp = ~l->head_stamp);
    hint_store(q, i, l);
    lane_releasing(l);
    spin_unlock(&l->lock);
    if (me) {
        if (where == PUSH_LOCAL) STAT_ADD(me->stats.push_local, 1);
        else STAT_ADD(me->stats.push_remote, 1);
    } else {
        STAT_ADD(q->retired.push_external, 1); /* under external_lock */
    }
    notify_pushed(me, cs);
    if (me)
        ready_leave(p);
    else
        ready_queue_leave_external(q);
}

void ready_hold_notify(struct cfa_processor_state *p)
{
    p->rq.holding_notify = true;
    p->rq.held_pushes = 0;
}

void ready_release_notify(struct cfa_processor_state *p)
{
    struct ready_local *me = &p->rq;
    me->holding_notify = false;
    if (me->held_pushes > 1) {
        ready_enter(p);
        idle_notify(&p->cluster->state->idle);
        ready_leave(p);
    } else {
        STAT_ADD(me->stats.notify_held, me->held_pushes);
    }
}

#ifndef CFA_NO_HELPING
/* Step 1 (thesis 4.4), out of line: a pop only counts down to it. At zero
 * without a target it draws one, to be examined at the next pop; at zero
 * with one it examines it and helps if worth it. The countdown restarts
 * at a random value of mean help_one_in, which keeps the probabilistic
 * rate of the thesis (1 in help_one_in pops) without drawing a random
 * number at every pop: that draw (a dependent chain of shifts and a
 * multiply) cost a measurable 5-10% of yield's throughput on one
 * processor, where there is nothing to help. */
static __attribute__((noinline)) struct cfa_thread *help_step(struct ready_queue *q, struct ready_local *me,
                                                            uint64_t now)
{
    if (me->target == NO_TARGET) {
        me->target = pick_target(q, me);
        /* Examine it at the next pop; with no remote lane, wait long. */
        me->help_countdown = me->target != NO_TARGET ? 1 : HELP_ONE_IN_MAX;
        return NULL;
    }
    unsigned target = me->target;
    me->target = NO_TARGET;
    now = now_tsc(); /* an examination: rare, and worth the TSC itself (see the steals) */
    struct cfa_thread *t = NULL;
    if (target < q->count && past_grace(q, target, now) && worth_helping(q, me, target, now)) {
        t = lane_try_pop(q, target, now);
        if (t) {
            STAT_ADD(me->stats.pop_helped, 1);
            me->help_one_in = HELP_ONE_IN;
        }
    } else {
        STAT_ADD(me->stats.help_declined, 1);
        if (me->help_one_in < HELP_ONE_IN_MAX)
            me->help_one_in *= 2;
    }
    me->help_countdown = 1 + random_below(me, 2 * me->help_one_in - 1);
    return t;
}
#endif

/* A steal from lane i, another processor's: its head, to run, and half
 * of the threads behind it (at most STEAL_MOVE_MAX), moved to one of
 * me's lanes with their stamps, so that a backlog spreads in a few steals
 * rather than one per thread (Go's and Tokio's steal-half). Between the
 * two locks the moved threads are in no lane, so an idle processor's
 * search may miss them: their append is a push, and notifies as one
 * (steps N1-N2 of idle.h). */
static struct cfa_thread *lane_steal(struct ready_queue *q, unsigned i, struct ready_local *me,
                                     struct cfa_cluster_state *cs, uint64_t now)
{
    struct cfa_queue moving = { 0 };
    struct cfa_thread *t = lane_take(q, i, now, &moving);
    if (!cfa_queue_empty(&moving)) {
        unsigned mine = lane_base(me) + random_below(me, SHARD_FACTOR);
        struct lane *own = &q->lanes[mine];
        spin_lock(&own->lock);
        lane_held(own);
        for (struct cfa_qlink *link; (link = cfa_queue_pop_front(&moving));)
            lane_append(own, lane_thread(link));
        hint_store(q, mine, own);
        lane_releasing(own);
        spin_unlock(&own->lock);
        notify_pushed(me, cs);
    }
    return t;
}

/* A lane to steal from: drawn like a helping target. */
static inline unsigned steal_victim(struct ready_queue *q, struct ready_local *me)
{
    unsigned victim = cache_preferring_remote_lane(q, me);
    if (in_my_cache(q, me, victim)) STAT_ADD(me->stats.victim_same_cache, 1);
    else STAT_ADD(me->stats.victim_other_cache, 1);
    return victim;
}

/* The local lane a pop tries first: the one whose head is older, by the
 * hints (SHARD_FACTOR == 2). */
static inline unsigned older_local_lane(struct ready_queue *q, struct ready_local *me)
{
    unsigned base = lane_base(me);
    uint64_t s0 = atomic_load_explicit(&q->hints[base].stamp, memory_order_relaxed);
    uint64_t s1 = atomic_load_explicit(&q->hints[base + 1].stamp, memory_order_relaxed);
    return s1 && (!s0 || s1 < s0) ? base + 1 : base;
}

/* Whether p's lanes look empty: read right after a pop (our lines, just
 * written), it spares a yield with other threads behind it the reader
 * section of ready_yield_alone. */
static inline bool local_lanes_look_empty(struct ready_queue *q, struct ready_local *me)
{
    return !atomic_load_explicit(&q->hints[lane_base(me)].stamp, memory_order_relaxed) &&
           !atomic_load_explicit(&q->hints[lane_base(me) + 1].stamp, memory_order_relaxed);
}

struct cfa_thread *ready_pop(struct cfa_processor_state *p, uint64_t now)
{
    struct ready_queue *q = &p->cluster->state->ready;
    struct ready_local *me = &p->rq;
    struct cfa_thread *t = NULL;

    ready_enter(p);
    refresh_cache(q, me);
#ifndef CFA_NO_HELPING
    if (__builtin_expect(--me->help_countdown == 0, 0) && (t = help_step(q, me, now)))
        goto out;
#endif
    unsigned first = older_local_lane(q, me), second = first ^ 1;
    if ((t = lane_try_pop(q, first, now)) || (t = lane_try_pop(q, second, now))) {
        STAT_ADD(me->stats.pop_local, 1);
        goto out;
    }
    /* Stealing compares other processors' stamps with the steal grace, a
     * few microseconds: the TSC itself, not the decision clock, which may
     * lag by as much (processor.c). Only when the local lanes are empty. */
    if (q->count > SHARD_FACTOR)
        now = now_tsc();
    for (int i = 0; i < STEAL_TRIES && q->count > SHARD_FACTOR; i++) {
        unsigned victim = steal_victim(q, me);
        if (!past_grace(q, victim, now))
            continue;
        if ((t = lane_steal(q, victim, me, p->cluster->state, now))) {
            STAT_ADD(me->stats.pop_stolen, 1);
            if (in_my_cache(q, me, victim)) STAT_ADD(me->stats.steal_same_cache, 1);
            else STAT_ADD(me->stats.steal_other_cache, 1);
            goto out;
        }
    }
out:
    me->lanes_looked_empty = local_lanes_look_empty(q, me);
    ready_leave(p);
    return t;
}

struct cfa_thread *ready_yield_swap(struct cfa_processor_state *p, struct cfa_thread *t, uint64_t now)
{
    struct ready_queue *q = &p->cluster->state->ready;
    struct ready_local *me = &p->rq;
    cfa_assert("resize lock: a yield swaps inside its processor's reader section",
               atomic_load_explicit(&me->read_lock, memory_order_relaxed) == 1);
#ifndef CFA_NO_HELPING
    if (me->help_countdown <= 1)
        return NULL; /* a helping step is due: the pop takes it */
#endif
    unsigned i = older_local_lane(q, me);
    struct lane *l = &q->lanes[i];
    if (!atomic_load_explicit(&q->hints[i].stamp, memory_order_relaxed) || !spin_try_lock(&l->lock))
        return NULL;
    lane_held(l);
    if (cfa_queue_empty(&l->threads)) { /* taken meanwhile: the other lane may be older */
        lane_releasing(l);
        spin_unlock(&l->lock);
        return NULL;
    }
    thread_mark_ready(t, now);
    lane_append(l, t);
    struct cfa_thread *next = lane_take_head(l, now); /* not t: the lane held a thread */
    hint_store(q, i, l);
    lane_releasing(l);
    spin_unlock(&l->lock);
    next->last_lane = i;
    refresh_cache(q, me);
#ifndef CFA_NO_HELPING
    me->help_countdown--;
#endif
    me->lanes_looked_empty = false;
    STAT_ADD(me->stats.push_local, 1);
    STAT_ADD(me->stats.pop_local, 1);
    STAT_ADD(me->stats.yield_swaps, 1);
    /* As a push: a processor that went idle while t ran may take the lanes'
     * other threads. */
    notify_pushed(me, p->cluster->state);
    return next;
}

bool ready_yield_alone(struct cfa_processor_state *p)
{
    struct ready_local *me = &p->rq;
    struct ready_queue *q = &p->cluster->state->ready;
    /* All of it in the reader section: a resize moves p's lanes (index)
     * and resets its helping state while p is outside one. */
    ready_enter(p);
    unsigned base = lane_base(me);
    bool alone =
#ifndef CFA_NO_HELPING
        me->help_countdown > 1 &&
#endif
        !atomic_load_explicit(&q->hints[base].stamp, memory_order_relaxed) &&
        !atomic_load_explicit(&q->hints[base + 1].stamp, memory_order_relaxed);
    if (alone) {
#ifndef CFA_NO_HELPING
        me->help_countdown--;
#endif
        STAT_ADD(me->stats.yields_alone, 1);
    }
    ready_leave(p);
    return alone;
}

/* Whether the idle search leaves lane i's head (lane locked) to the lane's
 * owner: inside the steal grace while the owner is not on the idle list.
 * Taking it would move a thread its busy owner runs in a moment; a
 * hand-off chain on one processor would bounce between it and an idle
 * one. */
static inline bool left_to_owner(struct ready_queue *q, unsigned i, const struct lane *l, uint64_t now)
{
    unsigned owner = i / SHARD_FACTOR;
    return l->head_stamp && (now <= l->head_stamp || now - l->head_stamp < steal_grace()) &&
           owner < q->nreaders &&
           !atomic_load_explicit(&q->readers[owner]->sleeper.listed, memory_order_relaxed);
}

struct cfa_thread *ready_pop_exhaustive(struct cfa_processor_state *p, bool *left)
{
    struct ready_queue *q = &p->cluster->state->ready;
    struct ready_local *me = &p->rq;
    struct cfa_thread *t = NULL;
    ready_enter(p);
    uint64_t now = now_tsc();
    unsigned start = lane_base(me);
    *left = false;
    for (unsigned k = 0; k < q->count && !t; k++) {
        unsigned i = (start + k) % q->count;
        struct lane *l = &q->lanes[i];
        spin_lock(&l->lock); /* not a try-lock: the search must be exhaustive */
        lane_held(l);
        if (k >= SHARD_FACTOR && left_to_owner(q, i, l, now))
            *left = true;
        else
            t = lane_take_head(l, now);
        hint_store(q, i, l);
        lane_releasing(l);
        spin_unlock(&l->lock);
        if (t)
            t->last_lane = i;
    }
    if (t)
        STAT_ADD(me->stats.pop_searched, 1);
    else if (*left)
        STAT_ADD(me->stats.search_left, 1);
    ready_leave(p);
    return t;
}

/* ---- resizing ---------------------------------------------------------- */

static void *alloc_lanes(unsigned count, size_t size, size_t align)
{
    void *a = aligned_alloc(align, count * size);
    if (!a)
        cfa_fatal("out of memory resizing the ready queue to %u lanes", count);
    memset(a, 0, count * size);
    return a;
}

/* Replaces the lane arrays by `count` lanes, new lane i taking old lane
 * source[i] (or nothing for UINT32_MAX); old lanes no one took are appended
 * to the new ones, so no thread is lost. Writer side held. */
static void rebuild_lanes(struct ready_queue *q, unsigned count, const unsigned *source)
{
    struct lane *lanes = alloc_lanes(count, sizeof *lanes, 64);
    struct lane_hint *hints = alloc_lanes(count, sizeof *hints, HINTS_ALIGN);
    bool *taken = calloc(q->count ? q->count : 1, sizeof *taken);
    if (!taken)
        cfa_fatal("out of memory resizing the ready queue");
    for (unsigned i = 0; i < count; i++) {
        if (source[i] == UINT32_MAX)
            continue;
        struct lane *from = &q->lanes[source[i]];
        lanes[i].threads = from->threads;
        lanes[i].head_stamp = from->head_stamp;
        lanes[i].avg_wait = from->avg_wait;
        lanes[i].len = from->len;
        hints[i].cache = atomic_load(&q->hints[source[i]].cache);
        taken[source[i]] = true;
    }
    for (unsigned j = 0, k = 0; j < q->count; j++) {
        struct lane *from = &q->lanes[j];
        if (taken[j] || cfa_queue_empty(&from->threads))
            continue;
        struct lane *to = &lanes[k++ % count];
        if (to->threads.tail)
            lane_thread(to->threads.tail)->next_ready_stamp = from->head_stamp;
        else
            to->head_stamp = from->head_stamp;
        cfa_queue_splice_back(&to->threads, &from->threads);
        to->len += from->len;
    }
    free(taken);
    free(q->lanes);
    free(q->hints);
    q->lanes = lanes;
    q->hints = hints;
    q->count = count;
    for (unsigned i = 0; i < count; i++)
        hint_store(q, i, &lanes[i]);
}

void ready_queue_init(struct ready_queue *q)
{
    /* A cluster always has lanes, even with no processor yet: threads can
     * be made ready there before its first processor starts. */
    q->lanes = alloc_lanes(SHARD_FACTOR, sizeof *q->lanes, 64);
    q->hints = alloc_lanes(SHARD_FACTOR, sizeof *q->hints, HINTS_ALIGN);
    q->count = SHARD_FACTOR;
}

void ready_queue_fork_child(struct ready_queue *q)
{
    atomic_store(&q->write_lock, 0);
    atomic_store(&q->external_lock, 0);
    for (unsigned i = 0; i < q->count; i++) {
        struct lane *l = &q->lanes[i];
        atomic_store(&l->lock, 0);
        l->threads = (struct cfa_queue){ 0 };
        l->head_stamp = 0;
        l->len = 0;
#ifdef CFA_DEBUG
        l->holder = NULL;
#endif
        hint_store(q, i, l);
    }
    for (unsigned i = 0; i < q->nreaders; i++) {
        struct ready_local *rq = &q->readers[i]->rq;
        atomic_store(&rq->read_lock, 0);
        rq->read_depth = 0;
        rq->holding_notify = false;
        rq->held_pushes = 0;
        rq->lanes_looked_empty = false;
    }
}

void ready_queue_fini(struct ready_queue *q)
{
    free(q->lanes);
    free(q->hints);
    free(q->readers);
    q->lanes = NULL;
    q->hints = NULL;
    q->readers = NULL;
}

void ready_queue_add_processor(struct cfa_cluster_state *cs, struct cfa_processor_state *p)
{
    struct ready_queue *q = &cs->ready;
    resize_write_lock(q);
    unsigned n = q->nreaders + 1;
    struct cfa_processor_state **readers = realloc(q->readers, n * sizeof *readers);
    if (!readers)
        cfa_fatal("out of memory adding a processor");
    unsigned old_n = q->nreaders;
    struct cfa_processor_state **old_readers = readers; /* same array, grown */
    readers[n - 1] = p;
    q->readers = readers;
    q->nreaders = n;
    unsigned count = n * SHARD_FACTOR;
    resize_check_writer(q, old_n);
    if (count > q->count) {
        unsigned source[count];
        for (unsigned i = 0; i < count; i++)
            source[i] = i < q->count ? i : UINT32_MAX;
        rebuild_lanes(q, count, source);
    }
    p->rq.index = n - 1;
    p->rq.target = NO_TARGET;
    p->rq.help_one_in = HELP_ONE_IN;
    p->rq.help_countdown = HELP_ONE_IN;
    p->rq.cpu = -1;
    p->rq.rng = (uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ULL ^ now_tsc();
    if (!p->rq.rng)
        p->rq.rng = 1;
    /* p's own flag was not taken: it is not running yet. */
    resize_write_unlock(q, old_n, old_readers);
    /* Cache-aware helping matters from the second processor on; hwloc is
     * slow to load, so never under the lock, and never for one processor. */
    if (n >= 2)
        topology_load();
}

static void stats_add(struct ready_stats *to, const struct ready_stats *from)
{
    to->push_local += from->push_local;
    to->push_remote += from->push_remote;
    to->push_external += from->push_external;
    to->run_next += from->run_next;
    to->yields_alone += from->yields_alone;
    to->yield_swaps += from->yield_swaps;
    to->pop_local += from->pop_local;
    to->pop_helped += from->pop_helped;
    to->pop_stolen += from->pop_stolen;
    to->pop_searched += from->pop_searched;
    to->search_left += from->search_left;
    to->help_declined += from->help_declined;
    to->notify_held += from->notify_held;
    to->os_yields += from->os_yields;
    to->clock_reads += from->clock_reads;
    to->target_same_cache += from->target_same_cache;
    to->target_other_cache += from->target_other_cache;
    to->victim_same_cache += from->victim_same_cache;
    to->victim_other_cache += from->victim_other_cache;
    to->steal_same_cache += from->steal_same_cache;
    to->steal_other_cache += from->steal_other_cache;
}

void ready_queue_remove_processor(struct cfa_cluster_state *cs, struct cfa_processor_state *p)
{
    struct ready_queue *q = &cs->ready;
    resize_write_lock(q);
    unsigned n = q->nreaders, k = p->rq.index;
    struct cfa_processor_state *last = q->readers[n - 1];
    unsigned remaining = n - 1;
    unsigned count = (remaining ? remaining : 1) * SHARD_FACTOR;
    unsigned source[count];
    for (unsigned j = 0; j < count / SHARD_FACTOR; j++) {
        /* The last processor takes the leaver's position, with its lanes. */
        unsigned owner = remaining == 0 ? k : (j == k ? n - 1 : j);
        for (unsigned s = 0; s < SHARD_FACTOR; s++)
            source[j * SHARD_FACTOR + s] = owner * SHARD_FACTOR + s;
    }
    resize_check_writer(q, n);
    rebuild_lanes(q, count, source);
    /* The leaver's processor flag stays taken: it is gone. */
    struct cfa_processor_state *unlock[n];
    unsigned nunlock = 0;
    for (unsigned i = 0; i < n; i++)
        if (q->readers[i] != p)
            unlock[nunlock++] = q->readers[i];
    if (last != p) {
        q->readers[k] = last;
        last->rq.index = k;
        last->rq.target = NO_TARGET;
        last->rq.help_countdown = HELP_ONE_IN;
        last->rq.cache = UINT32_MAX; /* rewrite its lanes' cache hints */
        last->rq.cpu = -1;
    }
    q->nreaders = remaining;
    stats_add(&q->retired, &p->rq.stats);
    idle_unregister(&cs->idle, &p->sleeper);
    idle_sleeper_fini(&p->sleeper);
    resize_write_unlock(q, nunlock, unlock);
    /* The leaver's lanes may hold a thread whose push woke nobody
     * (ready_hold_notify: the leaver meant to run it): now another
     * processor must. */
    ready_queue_enter_external(q); /* the lanes may be replaced again */
    if (ready_queue_any(q))
        idle_notify(&cs->idle);
    ready_queue_leave_external(q);
}

uint64_t ready_queue_grace_ends(struct cfa_processor_state *p, uint64_t now)
{
    struct ready_queue *q = &p->cluster->state->ready;
    unsigned base = lane_base(&p->rq);
    uint64_t ends = 0;
    for (unsigned i = 0; i < q->count; i++) {
        if (i - base < SHARD_FACTOR)
            continue;
        uint64_t stamp = atomic_load_explicit(&q->hints[i].stamp, memory_order_relaxed);
        if (stamp && !past_grace(q, i, now) && (ends == 0 || stamp + steal_grace() < ends))
            ends = stamp + steal_grace();
    }
    return ends;
}

bool ready_queue_any(struct ready_queue *q)
{
    for (unsigned i = 0; i < q->count; i++)
        if (atomic_load_explicit(&q->hints[i].stamp, memory_order_relaxed))
            return true;
    return false;
}

bool ready_queue_may_hold(struct ready_queue *q)
{
    for (unsigned i = 0; i < q->count; i++)
        if (atomic_load_explicit(&q->lanes[i].lock, memory_order_relaxed) ||
            atomic_load_explicit(&q->hints[i].stamp, memory_order_relaxed))
            return true;
    return false;
}

void ready_queue_stats(struct ready_queue *q, struct ready_stats *out)
{
    memset(out, 0, sizeof *out);
    stats_add(out, &q->retired);
    for (unsigned i = 0; i < q->nreaders; i++)
        stats_add(out, &q->readers[i]->rq.stats);
}

void ready_queue_cache_spread(struct ready_queue *q, unsigned *instances, unsigned *min_lanes,
                              unsigned *max_lanes)
{
    enum { MAX_INSTANCES = 4096 };
    static unsigned lanes_in[MAX_INSTANCES]; /* only stats.c calls this, at exit */
    memset(lanes_in, 0, sizeof lanes_in);
    *instances = 0;
    *min_lanes = *max_lanes = 0;
    for (unsigned i = 0; i < q->count; i++) {
        unsigned c = atomic_load_explicit(&q->hints[i].cache, memory_order_relaxed);
        if (c < MAX_INSTANCES && lanes_in[c]++ == 0)
            ++*instances;
    }
    for (unsigned c = 0; c < MAX_INSTANCES; c++) {
        if (!lanes_in[c])
            continue;
        if (!*min_lanes || lanes_in[c] < *min_lanes) *min_lanes = lanes_in[c];
        if (lanes_in[c] > *max_lanes) *max_lanes = lanes_in[c];
    }
}

