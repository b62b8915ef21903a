/* kernel.h: the runtime's internal objects and the seams between files.
 *
 *   processor.c    the kernel threads and their scheduling loop
 *   ready_queue.c  where ready threads wait: lanes, helping, resizing
 *   rwlock.h       the resizing lock guarding the ready queue's arrays
 *   topology.c     CPU -> cache instance, for cache-aware helping
 *   idle.c         how processors without work sleep and are woken
 *   registry.c     every live thread and processor
 *   deadlock.c     the report when nothing can ever run again
 *   preemption.c   time slices
 *   stats.c        CFA_STATS counters
 *   thread.c       user threads: start, park/unpark, yield, join, halt
 *   coroutine.c    resume/suspend
 *   cluster.c      clusters and migration
 *   boot.c         start-up: the main cluster, processor and thread
 *   fault.c        fatal errors and the fault handler (stack overflow)
 *
 * A user thread gives its processor up only through schedule_out(): it
 * records what should happen to it (the post action) and switches to the
 * processor's scheduler context, which performs the action once the
 * thread's registers are saved. That ordering is what makes it safe for
 * another processor to pick the thread up the moment it is made ready.
 */
#ifndef CFA_KERNEL_H
#define CFA_KERNEL_H

#include <cfa/runtime.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "invariant.h"
#include "ready_queue.h"
#include "rwlock.h"
#include "idle.h"
#include "kthread.h"

struct io_context;

enum post_action {
    POST_NONE,  /* nothing: the processor just started */
    POST_YIELD, /* make the thread ready again */
    POST_PARK,  /* consume a permit or block */
    POST_HALT,  /* main returned: release the stack, wake joiners */
};

struct cfa_processor_state {
    struct cfa_thread    *current;    /* user thread on this processor, or NULL;
                                       * first: cfa/mutex_call.h reads it inline */
    struct ready_local    rq;         /* its lanes, reader flag, helping state */
    struct cfa_processor *handle;
    struct cfa_cluster   *cluster;
    struct cfa_coroutine  sched;      /* the scheduling loop's context */
    enum post_action      post;       /* set by current before it switches out */
    struct cfa_thread    *run_next;   /* handed the processor by a thread that
                                       * blocks right after (thread.c) */
    unsigned              run_next_streak; /* hand-offs since the last pop */
    struct pooled        *stack_cache; /* stack.c: free stacks, this processor's */
    unsigned              stack_cached;
    _Atomic unsigned long switches;   /* threads run so far (preemption ticker) */
    unsigned long         preempt_seen; /* `switches` at the previous tick */
    struct idle_sleeper   sleeper;    /* how this processor sleeps when idle */
    uint64_t              os_turn_ends; /* TSC when its turn ends (processor.c) */
    struct cfa_thread    *starter;    /* woken when this processor is up (NULL:
                                       * a kernel thread, woken by futex on `up`) */
    _Atomic int           up;         /* its I/O is set up (processor.c: steps) */
    _Atomic bool          terminate;  /* set by cfa_processor_stop */
    struct cfa_thread    *stopper;    /* woken when this processor has left */
    _Atomic int           left;       /* the loop is over (processor.c: steps) */
    pthread_t             kthread;    /* as pthread_create returned it */
    pthread_t             self_kthread; /* set by the kthread itself (registry.c) */
    bool                  signalable; /* self_kthread may be signalled (registry lock) */
    _Atomic bool          quiesce_wanted; /* one_processor.c: cleared by SIGURG's handler */
    bool                  is_main;
    void                 *altstack;   /* signal stack for the fault handler */
    struct io_context    *io;         /* its ring or fallback state (io_processor.h) */
    struct cfa_processor_state *all_next, *all_prev; /* registry.c */
};

struct cfa_cluster_state {
    struct ready_queue  ready;
    struct idle_list    idle;
    _Atomic unsigned    nprocs;
};

/* The processor executing the caller, NULL on a kernel thread that is not
 * one (cfa/mutex_call.h says why it is read through asm). */
static inline struct cfa_processor_state *this_processor(void) { return cfa_this_processor_state(); }

static inline struct cfa_thread *this_thread(void) { return cfa_this_thread(); }

extern struct cfa_cluster cfa_main_cluster;

/* Zeroed memory on its own cache lines (no false sharing with neighbours);
 * NULL when out of memory. */
static inline void *cache_aligned_zalloc(size_t size)
{
    size = (size + 63) & ~(size_t)63;
    void *p = aligned_alloc(64, size);
    if (p)
        memset(p, 0, size);
    return p;
}

/* Reader sections nest (read_depth); the reader flag is taken while the
 * depth is above 0, and only then (checked in the debug build). */
static inline void ready_enter(struct cfa_processor_state *p)
{
    if (p->rq.read_depth++ == 0)
        rw_read_lock(&p->cluster->state->ready.write_lock, &p->rq.read_lock);
    cfa_assert("resize lock: a reader in its section holds its reader flag",
               atomic_load_explicit(&p->rq.read_lock, memory_order_relaxed) == 1);
}

static inline void ready_leave(struct cfa_processor_state *p)
{
    cfa_assert("resize lock: a reader section is left only after it was entered", p->rq.read_depth > 0);
    if (--p->rq.read_depth == 0)
        rw_read_unlock(&p->rq.read_lock);
}

/* thread.c */
void schedule_out(struct cfa_thread *t, enum post_action action);
/* The debug build checks every change of a thread's state against the
 * state machine of thread.c (just before the change). */
#ifdef CFA_DEBUG
void thread_check_transition(struct cfa_thread *t, int to, const char *file, int line);
#define THREAD_TRANSITION(t, to) thread_check_transition((t), (to), __FILE_NAME__, __LINE__)
#else
#define THREAD_TRANSITION(t, to) ((void)0)
#endif
void thread_halted(struct cfa_thread *t);
/* `stamp`: the TSC now, or a reading the caller took a moment ago (the
 * scheduling loop reads it once per iteration: rdtsc costs 15 ns in some
 * virtual machines). */
static inline void thread_make_ready_at(struct cfa_thread *t, enum push_where where, uint64_t stamp)
{
    THREAD_TRANSITION(t, CFA_THREAD_READY);
    t->ready_stamp = stamp;
    atomic_store_explicit(&t->state, CFA_THREAD_READY, memory_order_relaxed);
    ready_push(t, where);
}
static inline void thread_make_ready(struct cfa_thread *t, enum push_where where)
{
    thread_make_ready_at(t, where, __builtin_ia32_rdtsc());
}
/* Unparks t for a caller that blocks right after: t runs next on this
 * processor, without a trip through the ready queue (thread.c). */
void thread_unpark_before_blocking(struct cfa_thread *t);

/* fork.c: true in a process made by fork() (it has no processors but
 * the forking thread's); starting a thread or processor there stops the
 * program with a message naming `what`. */
extern bool runtime_forked_child;
void runtime_forked_child_refuses(const char *what) __attribute__((noreturn));

/* pthread_key.c: runs the key destructors of a thread whose main
 * returned, on the thread, and frees its values. */
void pt_specific_thread_exit(struct cfa_thread *t);

/* processor.c */
void processor_init_state(struct cfa_processor_state *s, struct cfa_processor *handle,
                          struct cfa_cluster *cl);
void processor_loop(struct cfa_processor_state *p);
/* A yield's fast path: true when the scheduling decision the yield asks
 * for would run the yielding thread again at once, which the caller then
 * simply goes on doing (processor.c says when). */
bool processor_yield_alone(struct cfa_processor_state *p);

/* cluster.c */
void cluster_state_init(struct cfa_cluster_state *cs);

/* monitor.c: the end of a thread's main, whose call on its own monitor
 * (g, one monitor, never nested) ends just before the thread halts. */
void monitor_leave_then_halt(struct cfa_mutex_group *g);

/* one_runtime.c: stops the program if another runtime is loaded too. */
void one_runtime_check(void);

/* code_windows.c */
/* A range of code [start, end) that preemption never stops, as
 * CFA_WINDOW_IN (cfa/mutex_call.h) records it: two offsets, each relative
 * to its own address. */
struct code_window { int32_t start, end; };
bool code_window_at(const struct code_window *first, const struct code_window *end, uintptr_t pc);
bool one_processor_window_at(uintptr_t pc); /* in any module's one-processor windows */
bool thread_read_window_at(uintptr_t pc);   /* in any module's thread-read windows */

/* one_processor.c */
void one_processor_count_changed(unsigned processors); /* under the registry lock */
/* Called by a processor's starter when it is the second: returns once
 * `sole` can no longer run an unlocked owner-word instruction. */
void one_processor_quiesce(struct cfa_processor_state *sole);

/* registry.c: every live thread and processor, for the deadlock report and
 * the preemption ticker. */
void registry_add_thread(struct cfa_thread *t);
void registry_remove_thread(struct cfa_thread *t);
/* Returns the processor that was the only one, if p is the second. */
struct cfa_processor_state *registry_add_processor(struct cfa_processor_state *p);
void registry_remove_processor(struct cfa_processor_state *p);
void registry_processor_signalable(struct cfa_processor_state *p, bool yes);
/* Walking a list: lock, follow all_next from the head, unlock. */
void registry_lock_processors(void);
void registry_unlock_processors(void);
struct cfa_processor_state *registry_processors(void);
void registry_lock_threads(void);
void registry_unlock_threads(void);
struct cfa_thread *registry_threads(void);

/* Wake-ups that something other than a running thread will deliver later
 * (a timer, an I/O completion). While any is pending, all processors
 * sleeping is not a deadlock. Call begin before the waiting thread parks
 * and end after the unpark. */
extern _Atomic long runtime_pending_wakeups;
static inline void pending_wakeup_begin(void) { atomic_fetch_add(&runtime_pending_wakeups, 1); }
static inline void pending_wakeup_end(void) { atomic_fetch_sub(&runtime_pending_wakeups, 1); }

/* Every kernel thread the runtime creates is counted: enter just before
 * pthread_create, leave as the thread's last act (deadlock.c tells them
 * from the program's own threads). */
void runtime_kthread_enter(void);
void runtime_kthread_leave(void);

/* deadlock.c: called by a processor about to block in idle sleep. */
void deadlock_check(void *processor);
void deadlock_configure(void);

/* preemption.c */
void preemption_start(void);
/* Asks p's kernel thread, by SIGURG, to clear p->quiesce_wanted where it
 * is not inside a one-processor window; false if p takes no signals. */
bool preemption_poke(struct cfa_processor_state *p);
/* Signals handled on a processor running a thread, preemptions made, and
 * signals dropped because the thread was inside a one-processor window. */
void preemption_counts(unsigned long *signals, unsigned long *yields, unsigned long *in_window);

/* stats.c */
void stats_configure(void);

/* fault.c */
void fault_install(void);
void fault_thread_enter(struct cfa_processor_state *p);
void fault_thread_leave(struct cfa_processor_state *p);

/* boot.c */
void runtime_boot(void);

#endif
