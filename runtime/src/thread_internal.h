/* thread_internal.h: thread.c's API inside the runtime: switching a
 * thread out with a post action (processor.h says why), making a thread
 * ready, and the state machine the debug build checks.
 *
 * A thread enters a lane only through thread_make_ready* or a yield's
 * swap (ready_yield_swap): its state is READY and its ready_stamp set
 * before the push, so a processor that pops it finds both.
 */
#ifndef CFA_THREAD_INTERNAL_H
#define CFA_THREAD_INTERNAL_H

#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdint.h>

#include "processor.h"
#include "ready_queue.h"

static inline struct cfa_thread *this_thread(void) { return cfa_this_thread(); }

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

/* Builds a started thread's first frame on its stack: by the processor
 * that first runs it (processor_loop), just before that first switch. */
void thread_prime(struct cfa_thread *t);
/* The id the next thread started will get (fork.c: the ghosts' bound). */
uint64_t thread_next_id(void);
/* `stamp`: the TSC now, or a reading the caller took a moment ago (the
 * scheduling loop reads it once per iteration: rdtsc costs 15 ns in some
 * virtual machines). */
/* READY and stamped: what a thread is before it enters a lane. */
static inline void thread_mark_ready(struct cfa_thread *t, uint64_t stamp)
{
    THREAD_TRANSITION(t, CFA_THREAD_READY);
    t->ready_stamp = stamp;
    atomic_store_explicit(&t->state, CFA_THREAD_READY, memory_order_relaxed);
}
static inline void thread_make_ready_at(struct cfa_thread *t, enum push_where where, uint64_t stamp)
{
    thread_mark_ready(t, stamp);
    ready_push(t, where);
}
static inline void thread_make_ready(struct cfa_thread *t, enum push_where where)
{
    thread_make_ready_at(t, where, __builtin_ia32_rdtsc());
}
/* Made ready by the thread running on this processor (an unpark, a
 * start): stamped with the TSC of the processor's last pop rather than a
 * new reading (rdtsc takes 7.5 ns on some CPUs, a tenth of a park-unpark
 * hop). The stamp is earlier than the push, by as long as the processor
 * has run without popping: the woken thread looks older, never younger,
 * so helping may take it sooner from a processor kept busy by its waker,
 * never later (docs/scheduler.md, "Timestamps"). Each use adds one, so
 * the threads one thread wakes keep their order across the lanes (a pop
 * takes the older head); a wake-up takes more than one TSC tick, so the
 * stamps stay behind the clock. */
static inline void thread_make_ready_local(struct cfa_thread *t)
{
    struct cfa_processor_state *p = this_processor();
    thread_make_ready_at(t, PUSH_LOCAL, p ? p->decided_tsc++ : __builtin_ia32_rdtsc());
}
/* Unparks t for a caller that blocks right after: t runs next on this
 * processor, without a trip through the ready queue (thread.c). */
void thread_unpark_before_blocking(struct cfa_thread *t);

#endif
