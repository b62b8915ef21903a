/* processor.h: a processor's state (struct cfa_processor_state) and the
 * scheduling loop's entry points (processor.c).
 *
 * A user thread gives its processor up only through schedule_out()
 * (thread_internal.h): it records what should happen to it (the post
 * action) and switches to the processor's scheduler context, which
 * performs the action once the thread's registers are saved. That
 * ordering is what makes it safe for another processor to pick the thread
 * up the moment it is made ready.
 */
#ifndef CFA_PROCESSOR_STATE_H
#define CFA_PROCESSOR_STATE_H

#include <cfa/runtime.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "idle.h"
#include "ready_queue.h"

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
    uint64_t              decided_tsc; /* TSC of its last pop (or wake from idle),
                                        * never 0: the stamp of the threads that the
                                        * running one wakes (thread_make_ready_local) */
    uint64_t              os_turn_ends; /* TSC when its turn ends (processor.c) */
    uint64_t              clock_read_tsc;  /* processor.c, decision_clock: the last TSC read */
    unsigned              clock_decisions; /* decisions since then */
    unsigned              clock_countdown; /* decisions until the next read */
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
    bool                  restart;    /* in a child of fork(): to get a kernel
                                       * thread (fork.c; processors lock) */
    void                 *altstack;   /* signal stack for the fault handler */
    struct io_context    *io;         /* its ring or fallback state (io_processor.h) */
    int                  *errno_slot; /* its kernel thread's errno, set where that thread
                                       * takes the processor; thread.c saves through it */
    struct cfa_processor_state *all_next, *all_prev; /* registry.c */
};

/* The next scheduling decision reads the TSC (processor.c,
 * decision_clock): called by the preemption signal's handler, which comes
 * only after one thread has run for a tick. */
static inline void processor_clock_stale(struct cfa_processor_state *p) { p->clock_countdown = 1; }

/* The processor executing the caller, NULL on a kernel thread that is not
 * one (cfa/mutex_call.h says why it is read through asm). */
static inline struct cfa_processor_state *this_processor(void) { return cfa_this_processor_state(); }

void processor_init_state(struct cfa_processor_state *s, struct cfa_processor *handle,
                          struct cfa_cluster *cl);
void processor_loop(struct cfa_processor_state *p);
/* A yield's fast path: true when the scheduling decision the yield asks
 * for would run the yielding thread again at once, which the caller then
 * simply goes on doing (processor.c says when). */
bool processor_yield_alone(struct cfa_processor_state *p);

/* In a child made by fork() (fork.c, step C4): s is the forking kernel
 * thread's processor (`forking`), which gets its own eventfd and ring, or
 * one whose kernel thread does not exist here, marked to restart. Returns
 * whether s is marked; one that had already left its loop is forgotten. */
bool processor_fork_child(struct cfa_processor_state *s, bool forking);
/* Step R: a new kernel thread for s, which runs its loop as at a start. */
void processor_restart(struct cfa_processor_state *s);

#endif
