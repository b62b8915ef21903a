/* cfa/thread.h: user-level threads.
 *
 * A cfa_thread is embedded (as the last member) in each object of a
 * `thread` type. Its own stack is a coroutine (`self`); while it resumes
 * other coroutines, `current` points at the one executing.
 *
 * Lifecycle: INACTIVE (all-zero, or set up) -> started -> HALTED once main
 * returns and its stack is released. join() waits for HALTED and may be
 * called any number of times, by any number of threads.
 *
 * A thread is also a monitor (self_monitor): it holds it from its start
 * until main returns, so mutex calls on the thread wait for main to accept
 * them (waitfor) or to end; join is such a call (cfa_join_function).
 *
 * park/unpark: `ticket` counts permits. park() consumes one or blocks;
 * unpark() adds one and makes the thread ready if it was blocked. Each
 * unpark should pair with one park (a permit given to a running thread is
 * kept, so a later park returns at once).
 */
#ifndef CFA_THREAD_H
#define CFA_THREAD_H

#include <cfa/coroutine.h>
#include <cfa/monitor.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cfa_cluster;
struct cfa_processor;

enum cfa_thread_state {
    CFA_THREAD_INACTIVE = 0, /* never started */
    CFA_THREAD_READY,        /* in a ready queue */
    CFA_THREAD_RUNNING,      /* on a processor */
    CFA_THREAD_BLOCKED,      /* parked */
    CFA_THREAD_HALTED,       /* main returned, stack released */
};

struct cfa_join_waiter;

struct cfa_thread {
    struct cfa_coroutine  self;     /* the thread's own stack and main */
    struct cfa_coroutine *current;  /* coroutine executing on this thread */
    struct cfa_qlink      link;     /* intrusive link: a ready-queue lane */
    uint64_t              next_ready_stamp; /* in a lane: ready_stamp of the next thread */
    struct cfa_cluster   *cluster;  /* where it is scheduled */
    struct cfa_processor *last_processor;
    uint64_t              ready_stamp;  /* rdtsc when last made ready */
    uint32_t              last_lane;    /* lane it was last taken from (a hint) */
    _Atomic int           ticket;       /* park permits; -1 = parked */
    _Atomic int           state;        /* enum cfa_thread_state */
    _Atomic int           join_lock;    /* guards `joiners` against halting */
    struct cfa_join_waiter *joiners;    /* threads parked in join(): records on their stacks */
    uint64_t              id;           /* unique, for diagnostics */
    const char           *wait_reason;  /* what it is blocked on, for reports */
    struct cfa_monitor    self_monitor; /* a thread is a monitor; main holds it */
    struct cfa_mutex_group *mutex_group; /* innermost mutex call in progress */
    struct pt_specific   *specific;     /* pthread_setspecific values (pthread_key.c) */
    struct cfa_thread    *all_prev, *all_next; /* registry of live threads */
    void                 *forkjoin;     /* its fork-join deque (forkjoin.c), or NULL */
};

/* Default usable stack size of a thread or coroutine (CFA_STACK_SIZE in the
 * environment overrides it at start-up). */
size_t cfa_default_stack_size(void);

/* Sets the thread up (main, object, type name for diagnostics, stack size
 * or 0 for the default) and makes it ready on the caller's cluster. */
void cfa_thread_start(struct cfa_thread *t, cfa_main_fn main, void *object,
                      const char *type_name, size_t stack_size);

/* Waits until t's main has returned. Returns at once for a thread that was
 * never started or has halted. Joining oneself is a fatal error. */
void cfa_thread_join(struct cfa_thread *t);

/* join() then release everything t holds; t may then be freed or reused. */
void cfa_thread_destroy(struct cfa_thread *t);

/* The running user thread (the program's main thread counts as one). */
struct cfa_thread *cfa_active_thread(void);

/* Gives the processor to another ready thread, if any. */
void cfa_yield(void);

/* Blocks until a permit is available (see above). */
void cfa_park(void);

/* Gives t a permit; makes it ready on the caller's processor if it was
 * parked. Callable from any user thread or kernel thread. */
void cfa_unpark(struct cfa_thread *t);

/* As cfa_unpark, but makes t ready near the processor it last ran on
 * (its cache is likely warm there) rather than on the caller's. */
void cfa_unpark_remote(struct cfa_thread *t);

/* Parks, recording `reason` (a static string) for deadlock reports. */
void cfa_park_for(const char *reason);

/* Names for diagnostics and debugging. The string is not copied. */
void        cfa_thread_set_name(struct cfa_thread *t, const char *name);
const char *cfa_thread_name(const struct cfa_thread *t);

#ifdef __cplusplus
}
#endif
#endif
