/* kernel.h: the runtime's internal objects and the seams between files.
 *
 *   processor.c    the kernel threads and their scheduling loop
 *   ready_queue.c  where ready threads wait (one per cluster)
 *   idle.c         how processors without work sleep and are woken
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

#include "ready_queue.h"
#include "idle.h"

enum post_action {
    POST_NONE,  /* nothing: the processor just started */
    POST_YIELD, /* make the thread ready again */
    POST_PARK,  /* consume a permit or block */
    POST_HALT,  /* main returned: release the stack, wake joiners */
};

struct cfa_processor_state {
    struct cfa_processor *handle;
    struct cfa_cluster   *cluster;
    struct cfa_coroutine  sched;      /* the scheduling loop's context */
    struct cfa_thread    *current;    /* user thread on this processor, or NULL */
    enum post_action      post;       /* set by current before it switches out */
    struct idle_sleeper   sleeper;    /* how this processor sleeps when idle */
    _Atomic bool          terminate;  /* set by cfa_processor_stop */
    struct cfa_thread    *stopper;    /* unparked when this processor has left */
    _Atomic bool          left;       /* the loop is over; set before that unpark */
    pthread_t             kthread;
    bool                  is_main;
    void                 *altstack;   /* signal stack for the fault handler */
    struct cfa_processor_state *next_in_cluster;
};

struct cfa_cluster_state {
    struct ready_queue  ready;
    struct idle_list    idle;
    _Atomic int         procs_lock;
    struct cfa_processor_state *procs;
    _Atomic unsigned    nprocs;
};

/* The processor executing the caller, NULL on a kernel thread that is not
 * one. Read through asm volatile with a memory clobber: a user thread can
 * migrate between kernel threads across any switch, so the compiler must
 * not keep the thread-local address in a register across calls. */
extern __thread struct cfa_processor_state *cfa_tls_processor
    __attribute__((tls_model("initial-exec")));

static inline struct cfa_processor_state *this_processor(void)
{
    struct cfa_processor_state *p;
    __asm__ volatile("movq cfa_tls_processor@gottpoff(%%rip), %0\n\t"
                     "movq %%fs:(%0), %0" : "=r"(p) : : "memory");
    return p;
}

static inline struct cfa_thread *this_thread(void)
{
    struct cfa_processor_state *p = this_processor();
    return p ? p->current : NULL;
}

extern struct cfa_cluster cfa_main_cluster;

/* thread.c */
void schedule_out(struct cfa_thread *t, enum post_action action);
void thread_make_ready(struct cfa_thread *t);
void thread_halted(struct cfa_thread *t);

/* processor.c */
void processor_init_state(struct cfa_processor_state *s, struct cfa_processor *handle,
                          struct cfa_cluster *cl);
void processor_loop(struct cfa_processor_state *p);

/* fault.c */
void fault_install(void);
void fault_thread_enter(struct cfa_processor_state *p);
void fault_thread_leave(struct cfa_processor_state *p);

/* boot.c */
void runtime_boot(void);

#endif
