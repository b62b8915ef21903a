/* ready_queue.h: the sharded ready queue with helping (thesis 4.4).
 *
 * A cluster's ready threads wait in `lanes`: SHARD_FACTOR lanes per
 * processor, each an intrusive FIFO under a try-lock. A processor pushes to
 * and pops from its own lanes; when they are empty it steals from random
 * lanes; and now and then it *helps* a remote lane whose head has waited
 * much longer than its own threads usually wait, which is what keeps a
 * thread from starving behind a processor that never pops (thesis 4.4,
 * the Transfer benchmark of 7.7).
 *
 * Invariants:
 *  - every array here (lanes, hints, readers) is read only under a reader
 *    flag of the resizing lock (resize_lock.h:
 *    ready_enter, ready_queue_enter_external) and replaced only by its writer;
 *  - a lane's head_stamp is the ready_stamp of its head thread, 0 when
 *    empty; each thread in a lane carries the stamp of the one behind it
 *    (next_ready_stamp), so a pop never touches the next thread;
 *  - hints[i] is a copy of lanes[i]'s head_stamp and average wait, written
 *    with relaxed stores inside the lane's critical section and read by
 *    other processors without any lock: it may be stale, it is only used to
 *    decide whether a lane is worth helping (thesis 4.4.1);
 *  - hints[i].cache is the cache instance of the processor that owns lane
 *    i, rewritten only when that processor finds it has moved.
 * The debug build checks (invariant.h): a lane's links and stamps change
 * only in the critical section of the kernel thread holding its lock
 * (`holder`); head_stamp is the head's ready_stamp (0 exactly when the lane
 * is empty, so a ready thread's stamp is never 0); a lane is pushed and
 * popped only inside a reader section; a resize (the writer) holds every
 * reader flag.
 */
#ifndef CFA_READY_QUEUE_H
#define CFA_READY_QUEUE_H

#include <cfa/internal/queue.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct cfa_thread;
struct cfa_processor_state;
struct cfa_cluster_state;

/* Adds n to a statistics counter. Each counter has one writer at a time
 * (its processor, or a lock's holder) and is read at exit while the
 * processors run (stats.c): relaxed atomics make that read well defined
 * at the cost of plain loads and stores. */
#define STAT_ADD(counter, n)                                                                   \
    atomic_store_explicit(&(counter), atomic_load_explicit(&(counter), memory_order_relaxed) + (n), \
                          memory_order_relaxed)

enum { SHARD_FACTOR = 2 }; /* lanes per processor: docs/scheduler.md#tunables */

struct lane {
    _Atomic int        lock;
    struct cfa_queue   threads;      /* of struct cfa_thread (link), oldest first */
    uint64_t           head_stamp;
    uint64_t           avg_wait;     /* moving average, in TSC cycles */
    unsigned           len;          /* threads in it */
#ifdef CFA_DEBUG
    const void        *holder;       /* kernel thread holding `lock` */
#endif
} __attribute__((aligned(64)));

struct lane_hint {
    _Atomic uint64_t stamp;
    _Atomic uint64_t avg_wait;
    _Atomic unsigned cache;
} __attribute__((aligned(32)));
/* A processor's hints fill one cache line of the (64-aligned) array, and
 * it writes them at every push and pop: a line shared with another
 * processor's hints would move between their cores at each of those. */
enum { HINTS_ALIGN = 64 };
_Static_assert(SHARD_FACTOR * sizeof(struct lane_hint) % HINTS_ALIGN == 0,
               "a processor's hints fill whole cache lines");

/* A processor's private scheduling state. */
struct ready_local {
    _Atomic int read_lock;   /* this processor's reader flag (resize_lock.h) */
    unsigned    read_depth;  /* nesting of ready_enter on this processor */
    unsigned    index;       /* position among the cluster's processors */
    unsigned    target;      /* lane chosen for helping at the next pop */
    unsigned    help_one_in; /* a target is drawn every help_one_in pops on average */
    unsigned    help_countdown; /* pops to the next helping step (never 0 between pops) */
    unsigned    cache;       /* cache instance last seen for this processor */
    int         cpu;         /* CPU it last ran on */
    uint64_t    rng;
    bool        holding_notify; /* see ready_hold_notify */
    bool        lanes_looked_empty; /* after the last pop: a yield may be alone */
    unsigned    held_pushes;
    struct ready_stats {
        _Atomic unsigned long push_local, push_remote, push_external;
        _Atomic unsigned long run_next;   /* hand-offs that skipped the queue (thread.c) */
        _Atomic unsigned long yields_alone; /* yields that found nothing else to run */
        _Atomic unsigned long yield_swaps;  /* yields whose push and pop took one lock (also counted there) */
        _Atomic unsigned long pop_local, pop_helped, pop_stolen, pop_searched;
        _Atomic unsigned long search_left;  /* idle searches that left a thread in its grace to its owner */
        _Atomic unsigned long help_declined;
        _Atomic unsigned long notify_held;  /* held pushes released without a notification */
        _Atomic unsigned long os_yields;    /* sched_yield calls (processor.c: OS turns) */
        _Atomic unsigned long clock_reads;  /* TSC reads of the loop's decisions (processor.c) */
        /* Cache-aware choices (thesis 4.4.3), by whether the lane chosen
         * was in this processor's cache instance when chosen. */
        _Atomic unsigned long target_same_cache, target_other_cache; /* helping targets drawn */
        _Atomic unsigned long victim_same_cache, victim_other_cache; /* steal victims drawn */
        _Atomic unsigned long steal_same_cache, steal_other_cache;   /* threads stolen */
    } stats;
} __attribute__((aligned(64)));

struct ready_queue {
    _Atomic int       write_lock;     /* the resize lock's global flag (resize_lock.h) */
    _Atomic int       external_lock;  /* reader flag for pushes from outside */
    struct lane      *lanes;
    struct lane_hint *hints;
    unsigned          count;          /* lanes */
    struct cfa_processor_state **readers;
    unsigned          nreaders;
    struct ready_stats retired;       /* counters of processors that left */
};

enum push_where {
    PUSH_LOCAL,  /* a lane of the calling processor */
    PUSH_REMOTE, /* a lane of the processor the thread last ran on */
};

void ready_queue_init(struct ready_queue *q);
void ready_queue_fini(struct ready_queue *q);
/* In a child made by fork() (fork.c, step C3): every lane empty (its
 * threads do not exist there), no lock or reader flag held. */
void ready_queue_fork_child(struct ready_queue *q);

/* Makes t ready in its cluster (t->ready_stamp already set); wakes an idle
 * processor of that cluster if there is one. Callable from any kernel
 * thread. */
void ready_push(struct cfa_thread *t, enum push_where where);

/* Between these, the pushes processor p makes wake no idle processor; the
 * release wakes one if p made two threads ready or more. For p's
 * scheduler, when it finds threads made ready by I/O or timers while it
 * has nothing to run: it runs the first itself at once, and waking
 * another processor for that one thread only moves it away (the sleeper
 * wakes tens of microseconds later, steals it, and the connection's next
 * request completes on the other ring). Tokio's workers follow the same
 * rule after driving their I/O. Never held while p runs a thread. */
void ready_hold_notify(struct cfa_processor_state *p);
void ready_release_notify(struct cfa_processor_state *p);

/* The next thread for processor p, or NULL if none was found cheaply.
 * `now` is a recent TSC reading (the caller usually has one). */
struct cfa_thread *ready_pop(struct cfa_processor_state *p, uint64_t now);

/* A yield's push and the pop after it in one lane lock (processor.c),
 * inside p's reader section: when p's older lane holds a thread and no
 * helping step is due, t (stamped `now`, made READY) joins that lane's
 * tail and its head is returned, as a push to a local lane and the pop
 * would have done. NULL when not: the caller then pushes and pops. */
struct cfa_thread *ready_yield_swap(struct cfa_processor_state *p, struct cfa_thread *t, uint64_t now);

/* For a yield's fast path (processor.c): true when p's lanes hold no
 * thread (their hints say so) and its next pop would take no helping
 * step; the yield then counts as that pop. Worth asking only when they
 * were empty right after p's last pop (lanes_looked_empty, which
 * cfa_yield tests first), so a yield with other threads behind it pays a
 * load and a branch. */
bool ready_yield_alone(struct cfa_processor_state *p);

/* Looks at every lane, waiting for each lane's lock: the search an idle
 * processor does after registering as idle (see idle.h). The head of
 * another processor's lane still inside the steal grace is not taken but
 * sets *left: the caller must not sleep then (the thread is there), and
 * looks again, by then past the grace or run by its owner. */
struct cfa_thread *ready_pop_exhaustive(struct cfa_processor_state *p, bool *left);

/* Resizing: add p to, or remove it from, its cluster's processors. Threads
 * in p's lanes move to the remaining lanes. */
void ready_queue_add_processor(struct cfa_cluster_state *cs, struct cfa_processor_state *p);
void ready_queue_remove_processor(struct cfa_cluster_state *cs, struct cfa_processor_state *p);

/* Records in its lanes' hints the cache instance p runs on (thesis
 * 4.4.3): each pop refreshes it, and a starting processor records it
 * before it is reported started, so the map is whole once every
 * cfa_processor_start has returned. */
void ready_record_cache(struct cfa_processor_state *p);

/* When the first thread that another processor's lanes hold, made ready
 * too recently to be stolen (ready_pop leaves it to its owner for a
 * moment), becomes stealable: a TSC time, 0 if there is none. Call in p's
 * reader section. */
uint64_t ready_queue_grace_ends(struct cfa_processor_state *p, uint64_t now);

/* Whether any lane holds a thread; exact only while every processor of the
 * cluster is asleep (used by the deadlock check). */
bool ready_queue_any(struct ready_queue *q);

/* Whether a lane may hold a thread: its hint stamp is set, or its lock is
 * held (a push may be under way). For the idle pass-on (idle.c),
 * after a full fence: a push whose notifier read `first` before that
 * processor republished it has taken its lane's lock by then (x86: the
 * lock's exchange is globally ordered before the notifier's load), so it
 * is seen either as the held lock or, once released, as the hint stored
 * before the release. Call in a reader section. */
bool ready_queue_may_hold(struct ready_queue *q);

/* Sum of the counters of live and retired processors. */
void ready_queue_stats(struct ready_queue *q, struct ready_stats *out);

/* How the lanes spread over cache instances (hints[].cache): how many
 * instances hold lanes, and the fewest and most lanes one holds. */
void ready_queue_cache_spread(struct ready_queue *q, unsigned *instances, unsigned *min_lanes,
                              unsigned *max_lanes);

#endif
