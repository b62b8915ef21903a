/* thread.c: user threads.
 *
 * Invariants:
 *  - a thread is in at most one place: running on one processor, in one
 *    ready queue, or blocked (parked) with its registers saved;
 *  - only the processor's post action (after the switch) makes a thread
 *    that gave up its processor ready or blocked, so nobody can resume it
 *    before its registers are saved;
 *  - `ticket` holds park permits: park takes one or goes to -1 (blocked);
 *    the unpark that finds -1 is the one that makes the thread ready;
 *  - `state` becomes HALTED under join_lock, after which nobody is added
 *    to `joiners`; the stack is released before that;
 *  - a joiner's record (on its stack, never its `link`: a queued joiner
 *    still runs until it parks, and a yield or preemption puts it on a
 *    lane through `link`) stays valid until the halting side has unparked
 *    it and stored `released`, its last touch of the record: the joiner
 *    returns only once HALTED and released, even when a stray permit
 *    ended its park early;
 *  - `state` moves only along the state machine INACTIVE -> READY (start),
 *    READY -> RUNNING (a processor takes it), RUNNING -> READY (yield),
 *    RUNNING -> BLOCKED (park), BLOCKED -> READY (unpark), RUNNING ->
 *    HALTED (main returned), HALTED or INACTIVE -> INACTIVE (destroy).
 *    READY -> READY would put the thread in two queues. The debug build
 *    checks every transition (thread_check_transition).
 */
#include "fork.h"
#include "invariant.h"
#include "monitor.h"
#include "processor.h"
#include "pthread_key.h"
#include "ready_queue.h"
#include "registry.h"
#include "thread_internal.h"
#include "context.h"
#include "forkjoin.h"
#include "spinlock.h"
#include "stack.h"

#include <cfa/runtime.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static _Atomic uint64_t next_thread_id = 1;

uint64_t thread_next_id(void) { return atomic_load_explicit(&next_thread_id, memory_order_relaxed); }

#ifdef CFA_DEBUG
#include <stdio.h>
void thread_check_transition(struct cfa_thread *t, int to, const char *file, int line)
{
    static const char *const names[] = { "INACTIVE", "READY", "RUNNING", "BLOCKED", "HALTED" };
    static const unsigned legal_from[] = {
        [CFA_THREAD_INACTIVE] = 1u << CFA_THREAD_INACTIVE | 1u << CFA_THREAD_HALTED,
        [CFA_THREAD_READY] = 1u << CFA_THREAD_INACTIVE | 1u << CFA_THREAD_RUNNING | 1u << CFA_THREAD_BLOCKED,
        [CFA_THREAD_RUNNING] = 1u << CFA_THREAD_READY,
        [CFA_THREAD_BLOCKED] = 1u << CFA_THREAD_RUNNING,
        [CFA_THREAD_HALTED] = 1u << CFA_THREAD_RUNNING,
    };
    int from = atomic_load_explicit(&t->state, memory_order_relaxed);
    if (from == CFA_THREAD_READY && to == CFA_THREAD_READY)
        invariant_broken("a thread is in at most one queue", file, line);
    if (from < 0 || from > CFA_THREAD_HALTED || !(legal_from[to] >> from & 1)) {
        static char what[96];
        snprintf(what, sizeof what, "thread state machine: %s -> %s is not a transition",
                 from >= 0 && from <= CFA_THREAD_HALTED ? names[from] : "?", names[to]);
        invariant_broken(what, file, line);
    }
}
#endif

/* errno belongs to the user thread: it is saved before every switch out
 * and restored when the thread runs again, possibly on another kernel
 * thread, through that processor's errno_slot (its kernel thread's errno,
 * whose address the compiler would otherwise keep across the switch).
 * Out of line, so that a parked thread's innermost frame is schedule_out
 * (the debugger's backtraces), not code inlined after the switch. */
static __attribute__((noinline)) void errno_restore(int value) { *this_processor()->errno_slot = value; }

void schedule_out(struct cfa_thread *t, enum post_action action)
{
    struct cfa_processor_state *p = this_processor();
    int saved_errno = *p->errno_slot;
    p->post = action;
    context_switch(t->current, &p->sched);
    errno_restore(saved_errno);
}

static void thread_entry(void *arg)
{
    struct cfa_thread *t = arg;
    context_arrived();
    /* main runs as a mutex call on the thread's own monitor, which the
     * thread has held since its start (cfa_thread_start). */
    struct cfa_monitor *self_monitor = &t->self_monitor;
    struct cfa_mutex_group main_call = { .monitors = &self_monitor, .count = 1, .thread = t };
    t->mutex_group = &main_call;
    t->self.main(t->self.object);
    if (t->specific)
        pt_specific_thread_exit(t);
    monitor_leave_then_halt(&main_call);
    struct cfa_processor_state *p = this_processor();
    p->post = POST_HALT;
    context_switch_final(t->current, &p->sched);
}

void thread_prime(struct cfa_thread *t)
{
    context_prime_frame(&t->self, thread_entry, t);
}

void cfa_thread_start(struct cfa_thread *t, cfa_main_fn main, void *object,
                      const char *type_name, size_t stack_size)
{
    if (atomic_load_explicit(&t->state, memory_order_relaxed) != CFA_THREAD_INACTIVE)
        cfa_fatal("thread %s (type %s) started twice", cfa_thread_name(t), type_name);
    fork_revive();
    cfa_coroutine_setup(&t->self, main, object, type_name);
    t->self.stack_size = stack_size;
    stack_acquire(&t->self.stack, stack_size);
    context_prime_later(&t->self); /* thread_prime, at its first run */
    t->self.state = CFA_COROUTINE_ACTIVE;
    t->current = &t->self;
    t->cluster = cfa_current_cluster();
    t->id = atomic_fetch_add_explicit(&next_thread_id, 1, memory_order_relaxed);
    /* `ticket` is not reset: a permit given before the start is kept. */
    t->last_lane = UINT32_MAX;
    /* before anyone can call a mutex function on t */
    atomic_store_explicit(&t->self_monitor.owner, (uintptr_t)t, memory_order_relaxed);
    registry_add_thread(t);
    thread_make_ready_local(t);
}

/* A thread waiting in join(t), on t's list, in the joiner's frame. The
 * halting side's store to `released` is its last touch of the record: a
 * joiner woken early (a stray permit) must not return before it, or the
 * halting side would follow `next` through a dead frame. */
struct cfa_join_waiter {
    struct cfa_join_waiter *next;
    struct cfa_thread      *thread;
    _Atomic bool            released;
};

/* `joiners` once the thread has halted: late joiners must not queue. */
#define JOINERS_CLOSED ((struct cfa_join_waiter *)1)

/* Runs on the processor after the halting thread's last switch. Storing
 * HALTED is the last touch of t: a joiner that sees it may free t at once
 * (even the join_lock must be released before). */
void thread_halted(struct cfa_thread *t)
{
    registry_remove_thread(t);
    if (t->forkjoin)
        forkjoin_thread_halted(t);
    stack_release(&t->self.stack);
    context_forget(&t->self);
    t->self.state = CFA_COROUTINE_HALTED;
    if (cfa_test_hook)
        cfa_test_hook(CFA_STEP_HALTING);
    spin_lock(&t->join_lock);
    struct cfa_join_waiter *joiner = t->joiners;
    t->joiners = JOINERS_CLOSED;
    spin_unlock(&t->join_lock);
    THREAD_TRANSITION(t, CFA_THREAD_HALTED);
    atomic_store_explicit(&t->state, CFA_THREAD_HALTED, memory_order_release);
    if (joiner && cfa_test_hook)
        cfa_test_hook(CFA_STEP_JOINERS_TAKEN);
    while (joiner) {
        struct cfa_join_waiter *next = joiner->next;
        cfa_unpark(joiner->thread);
        atomic_store_explicit(&joiner->released, true, memory_order_release); /* the record may end now */
        joiner = next;
    }
}

void cfa_thread_join(struct cfa_thread *t)
{
    int state = atomic_load_explicit(&t->state, memory_order_acquire);
    if (state == CFA_THREAD_INACTIVE || state == CFA_THREAD_HALTED)
        return;
    struct cfa_thread *self = this_thread();
    if (self == t)
        cfa_fatal("thread %s (type %s) joins itself", cfa_thread_name(t), t->self.type_name);
    if (!self)
        cfa_fatal("join of thread %s from a kernel thread that is not a processor", cfa_thread_name(t));
    /* Join is a mutex call on t: it waits until t's main accepts it
     * (waitfor(join, this)) or returns. */
    struct cfa_monitor *m = &t->self_monitor;
    struct cfa_mutex_group call;
    cfa_mutex_enter(&call, &m, 1, cfa_join_function);
    cfa_mutex_leave(&call);
    struct cfa_join_waiter me = { .thread = self };
    spin_lock(&t->join_lock);
    bool closed = t->joiners == JOINERS_CLOSED;
    if (!closed) {
        me.next = t->joiners;
        t->joiners = &me;
    }
    spin_unlock(&t->join_lock);
    if (!closed && cfa_test_hook)
        cfa_test_hook(CFA_STEP_JOIN_QUEUED);
    if (closed) { /* t is halting and HALTED is a few instructions away */
        while (atomic_load_explicit(&t->state, memory_order_acquire) != CFA_THREAD_HALTED)
            cfa_yield();
        return;
    }
    /* Queued: park until HALTED (a permit may be stray), then wait for the
     * halting side to be done with `me`: its unpark comes before that, so
     * it cannot reach a thread that has returned and gone. */
    do
        cfa_park_for("join");
    while (atomic_load_explicit(&t->state, memory_order_acquire) != CFA_THREAD_HALTED);
    while (!atomic_load_explicit(&me.released, memory_order_acquire))
        cfa_yield();
}

void cfa_thread_destroy(struct cfa_thread *t)
{
    cfa_thread_join(t);
    /* Back to a not-started thread (the stack went at halt): the object
     * may be freed, or started again. Other joiners must be done. */
    THREAD_TRANSITION(t, CFA_THREAD_INACTIVE);
    atomic_store_explicit(&t->state, CFA_THREAD_INACTIVE, memory_order_relaxed);
    t->self.state = CFA_COROUTINE_INACTIVE;
    t->joiners = NULL;
    atomic_store_explicit(&t->ticket, 0, memory_order_relaxed);
    memset(&t->self_monitor, 0, sizeof t->self_monitor);
    t->mutex_group = NULL;
}

struct cfa_thread *cfa_active_thread(void) { return this_thread(); }

void cfa_yield(void)
{
    struct cfa_thread *t = this_thread();
    if (!t)
        return;
    /* The shortcut's first filter inline: a yield with threads behind it
     * pays one load and a branch for it. */
    struct cfa_processor_state *p = this_processor();
    if (!(p->rq.lanes_looked_empty && processor_yield_alone(p)))
        schedule_out(t, POST_YIELD);
}

void cfa_park_for(const char *reason)
{
    struct cfa_thread *t = this_thread();
    if (!t)
        cfa_fatal("park called from a kernel thread that is not a processor");
    /* Fast path: a permit is already here, no switch needed. */
    int permits = atomic_load_explicit(&t->ticket, memory_order_relaxed);
    while (permits > 0)
        if (atomic_compare_exchange_weak(&t->ticket, &permits, permits - 1))
            return;
    t->wait_reason = reason;
    schedule_out(t, POST_PARK);
    t->wait_reason = NULL;
}

void cfa_park(void) { cfa_park_for("park"); }

void cfa_unpark(struct cfa_thread *t)
{
    if (atomic_fetch_add(&t->ticket, 1) == -1 && !fork_ghost(t))
        thread_make_ready_local(t);
}

/* The run-next slot. A thread that makes another ready and then blocks
 * (a monitor's wait handing the monitor to the signalled thread) would
 * push it to a lane and pop it again a moment later on the same
 * processor: a lane lock, a TSC reading and an idle check for nothing.
 * Instead the processor takes it from `run_next` after the blocker's post
 * action. It is invisible to other processors meanwhile, which is why only
 * a caller about to block may use it: the slot is emptied at once. At most
 * RUN_NEXT_STREAK hand-offs in a row go this way; the next one goes
 * through the queue, so a pair of threads handing off to each other
 * cannot keep a processor's lanes waiting (Tokio bounds its LIFO slot the
 * same way; Go's runnext inherits the time slice instead). */
enum { RUN_NEXT_STREAK = 16 }; /* docs/scheduler.md#tunables */

void thread_unpark_before_blocking(struct cfa_thread *t)
{
    if (atomic_fetch_add(&t->ticket, 1) != -1 || fork_ghost(t))
        return; /* not blocked yet (its park will consume the permit), or a ghost (fork.h) */
    struct cfa_processor_state *p = this_processor();
    if (p && !p->run_next && p->run_next_streak < RUN_NEXT_STREAK && t->cluster == p->cluster) {
        p->run_next_streak++;
        STAT_ADD(p->rq.stats.run_next, 1);
        THREAD_TRANSITION(t, CFA_THREAD_READY);
        atomic_store_explicit(&t->state, CFA_THREAD_READY, memory_order_relaxed);
        p->run_next = t;
        return;
    }
    thread_make_ready_local(t);
}

void cfa_unpark_remote(struct cfa_thread *t)
{
    if (atomic_fetch_add(&t->ticket, 1) == -1 && !fork_ghost(t))
        thread_make_ready(t, PUSH_REMOTE);
}

void cfa_thread_set_name(struct cfa_thread *t, const char *name) { t->self.name = name; }

const char *cfa_thread_name(const struct cfa_thread *t)
{
    if (t->self.name)
        return t->self.name;
    return t->self.type_name ? t->self.type_name : "(unnamed)";
}
