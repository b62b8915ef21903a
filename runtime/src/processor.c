/* processor.c: processors, the kernel threads that run user threads.
 *
 * A processor repeats: perform the post action of the thread that just
 * left it, take the next ready thread of its cluster (sleeping when there
 * is none), switch to it. It leaves the loop only when asked to stop and
 * only between two threads, so the thread it was running is never lost:
 * that thread was made ready (or blocked) by its post action first, and
 * the threads in its lanes move to the remaining lanes as it leaves.
 *
 * The main processor is the program's first kernel thread; its scheduling
 * loop runs on a mapped stack because main() keeps the process stack as a
 * user thread (boot.c). The others run the loop on their pthread stacks.
 * cfa_processor_start returns once the new kernel thread has set its I/O
 * up; cfa_processor_stop, once it has left its loop and ended.
 */
#include "cache_aligned.h"
#include "deadlock.h"
#include "fault.h"
#include "fork.h"
#include "idle.h"
#include "kthread.h"
#include "one_processor.h"
#include "processor.h"
#include "ready_queue.h"
#include "registry.h"
#include "resize_lock.h"
#include "thread_internal.h"
#include "spinlock.h"
#include "stack.h"
#include "context.h"
#include "io_processor.h"
#include "io_wakeup.h"

#include <cfa/runtime.h>
#include <cfa/testing.h>
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* OS turns (docs/preemption.md, "OS turns"): a processor that has run
 * for OS_TURN_TSC without blocking calls sched_yield at its next
 * scheduling decision, so a short task woken behind it on the same CPU
 * need not wait for its whole slice. After a yield that kept it off its
 * CPU longer than OS_TURN_LONG_WAIT_TSC (the CPU went to a task with
 * more than a moment's work, which the processor's own threads and ring
 * would wait behind), it does not yield for OS_TURN_BACKOFF_TSC, even if
 * it blocks meanwhile. */
enum {
    OS_TURN_TSC = 1u << 20,           /* docs/scheduler.md#tunables */
    OS_TURN_LONG_WAIT_TSC = 1u << 19, /* docs/scheduler.md#tunables */
    OS_TURN_BACKOFF_TSC = 1u << 28,   /* docs/scheduler.md#tunables */
};

/* The kernel thread blocked: a new turn starts, unless the processor is
 * backing off (its turn then ends as planned). */
static void os_turn_restart(struct cfa_processor_state *p)
{
    uint64_t ends = __builtin_ia32_rdtsc() + OS_TURN_TSC;
    if (ends > p->os_turn_ends)
        p->os_turn_ends = ends;
}

__thread struct cfa_processor_state *cfa_tls_processor;
_Static_assert(offsetof(struct cfa_processor_state, current) == 0,
               "cfa/mutex_call.h reads the running thread as the first word");

/* `now`: the TSC, or 0 to read it only if t is made ready. */
static void finish_post_action(struct cfa_processor_state *p, struct cfa_thread *t, uint64_t now)
{
    enum post_action action = p->post;
    p->post = POST_NONE;
    switch (action) {
    case POST_NONE:
        break;
    case POST_YIELD:
        thread_make_ready_at(t, PUSH_LOCAL, now ? now : __builtin_ia32_rdtsc());
        break;
    case POST_PARK:
        /* The thread's registers are saved: an unpark may now run it. If a
         * permit arrived meanwhile (ticket was positive), consume it and
         * make the thread ready again instead of blocking. */
        THREAD_TRANSITION(t, CFA_THREAD_BLOCKED);
        atomic_store_explicit(&t->state, CFA_THREAD_BLOCKED, memory_order_relaxed);
        if (atomic_fetch_sub(&t->ticket, 1) > 0)
            thread_make_ready_at(t, PUSH_LOCAL, now ? now : __builtin_ia32_rdtsc());
        break;
    case POST_HALT:
        thread_halted(t);
        break;
    }
}

/* When the first thread in another processor's lanes that is still inside
 * the steal grace (ready_queue.c) may be stolen; 0 if there is none. */
static uint64_t steal_grace_ends(struct cfa_processor_state *p)
{
    ready_enter(p);
    uint64_t ends = ready_queue_grace_ends(p, __builtin_ia32_rdtsc());
    ready_leave(p);
    return ends;
}

/* Idle: wait out a steal grace, or go idle (idle.h, steps I1-I4).
 * Returns a thread found on the way, or NULL to make the caller look
 * again. */
static struct cfa_thread *idle(struct cfa_processor_state *p)
{
    uint64_t grace_ends = steal_grace_ends(p);
    if (grace_ends) {
        /* Its owner is likely to run it within the grace; if not, the
         * caller's next pop steals it. Neither registering as idle nor the
         * exhaustive search (which takes any thread) would wait. The wait
         * reads only the TSC: polling the other processor's lanes would
         * take the lines it is writing away from it. */
        while (__builtin_ia32_rdtsc() < grace_ends && !atomic_load_explicit(&p->terminate, memory_order_relaxed))
            cpu_relax();
        return NULL;
    }
    bool blocked = false;
    struct cfa_thread *t = idle_search_then_sleep(p, &blocked);
    if (blocked)
        os_turn_restart(p);
    return t;
}

/* Out of line: once a turn. Returns the TSC when the CPU came back. Only
 * while p->current is NULL: a preemption signal taken in the system call
 * must not mistake the scheduler for the thread that just left. */
static __attribute__((noinline)) uint64_t os_turn_end(struct cfa_processor_state *p, uint64_t now)
{
    sched_yield();
    uint64_t back = __builtin_ia32_rdtsc();
    p->os_turn_ends = back + (back - now > OS_TURN_LONG_WAIT_TSC ? OS_TURN_BACKOFF_TSC : OS_TURN_TSC);
    STAT_ADD(p->rq.stats.os_yields, 1);
    return back;
}

/* A yield with nothing else to run returns without a context switch, as
 * libfibre's does; about 2.5x cheaper than the round trip through the
 * scheduler (docs/performance.md, "Yield alone"). It must decide exactly
 * what the loop would have decided, so it returns true only when
 *  1. the processor is not asked to stop (it leaves between threads),
 *  2. its I/O and timers are not due (the I/O countdown would poll), and
 *  3. its lanes hold no thread and no helping step is due
 *     (ready_yield_alone), in which case the yielder, pushed to its own
 *     lane, would be the one popped. Helping keeps its rate: the yield
 *     counts as a pop for the helping countdown, and the due step goes
 *     the slow way, so a remote lane's older threads are still taken
 *     (thesis 4.4).
 * It also counts as a decision for the I/O countdown, and the decision
 * that countdown sends the slow way checks the OS turn: a turn ends at
 * most IO_POLL_INTERVAL yields late (a TSC reading here would cost a
 * third of the fast path). A thread that only yields is still preempted:
 * `switches` does not move. */
bool processor_yield_alone(struct cfa_processor_state *p)
{
    if (atomic_load_explicit(&p->terminate, memory_order_relaxed) ||
        (p->io && p->io->countdown <= 1) || !ready_yield_alone(p))
        return false;
    if (p->io)
        p->io->countdown--;
    return true;
}

/* A yield with other threads in p's lanes: its push and the next pop in
 * one lane lock (ready_yield_swap), when the loop would decide nothing
 * else first (not asked to stop, no OS turn due) and the thread stays on
 * p's cluster (a migration yields to move). */
static inline struct cfa_thread *yield_swap(struct cfa_processor_state *p, struct cfa_thread *t, uint64_t now)
{
    if (now > p->os_turn_ends || t->cluster != p->cluster ||
        atomic_load_explicit(&p->terminate, memory_order_acquire))
        return NULL;
    struct cfa_thread *next = ready_yield_swap(p, t, now);
    if (next)
        p->post = POST_NONE;
    return next;
}

enum {
    CLOCK_SAMPLE_SHIFT = 4, /* docs/scheduler.md#tunables */
    CLOCK_LAG_TSC = 2048,   /* docs/scheduler.md#tunables */
};

/* The decision clock (docs/scheduler.md, "The decision clock"): the TSC
 * at one decision in k, k a power of two up to 1 << CLOCK_SAMPLE_SHIFT,
 * the most whose time at the mean interval since the previous reading is
 * within CLOCK_LAG_TSC; in between, the previous decision's time plus
 * one. Invariant: the estimate is never ahead of the TSC and never goes
 * back (the readings do not, and fewer than k steps of one separate two
 * readings). The lag, usually under CLOCK_LAG_TSC, must stay well under
 * the steal grace (ready_queue.c), which other processors compare it
 * with. */
static uint64_t clock_lag_tsc = CLOCK_LAG_TSC; /* cfa_test_decision_clock */

void cfa_test_decision_clock(bool sampled)
{
    clock_lag_tsc = sampled ? UINT64_MAX : 0;
}

/* k for the next readings, after `decisions` took `elapsed` TSC cycles:
 * the largest power of two up to 1 << CLOCK_SAMPLE_SHIFT with
 * k * elapsed / decisions <= lag, found without a division (dearer than
 * the rest of a reading). */
static inline unsigned clock_countdown(uint64_t elapsed, unsigned decisions, uint64_t lag)
{
    uint64_t budget;
    if (__builtin_mul_overflow(lag, (uint64_t)(decisions ? decisions : 1), &budget))
        budget = UINT64_MAX;
    unsigned shift = CLOCK_SAMPLE_SHIFT;
    while (shift && elapsed > budget >> shift)
        shift--;
    return 1u << shift;
}

unsigned cfa_test_clock_countdown(unsigned long long elapsed, unsigned decisions)
{
    return clock_countdown(elapsed, decisions, CLOCK_LAG_TSC);
}

static __attribute__((noinline)) uint64_t clock_read(struct cfa_processor_state *p)
{
    uint64_t now = __builtin_ia32_rdtsc();
    p->clock_countdown = clock_countdown(now - p->clock_read_tsc, p->clock_decisions, clock_lag_tsc);
    p->clock_read_tsc = now;
    p->clock_decisions = 1;
    STAT_ADD(p->rq.stats.clock_reads, 1);
    return now;
}

static inline uint64_t decision_clock(struct cfa_processor_state *p)
{
    if (__builtin_expect(--p->clock_countdown != 0, 1)) {
        p->clock_decisions++;
        return p->decided_tsc + 1;
    }
    return clock_read(p);
}

void processor_loop(struct cfa_processor_state *p)
{
    struct cfa_thread *t = p->current;
    p->os_turn_ends = 0;
    os_turn_restart(p);
    p->clock_countdown = 1;
    for (;;) {
        struct cfa_thread *next = p->run_next;
        if (next) {
            /* Handed over by t, which blocks (thread.c, the run-next slot):
             * its post action, then straight to the next thread. */
            p->run_next = NULL;
            p->current = NULL;
            finish_post_action(p, t, 0);
            io_tick(p->io);
            t = next;
            goto run;
        }
        p->run_next_streak = 0;
        /* One reader section and one clock reading serve both the post
         * action of the thread that left and the pop of the next one. */
        uint64_t now = decision_clock(p);
        p->decided_tsc = now;
        ready_enter(p);
        if (t) {
            p->current = NULL;
            if (p->post == POST_YIELD && (next = yield_swap(p, t, now))) {
                ready_leave(p);
                io_tick(p->io);
                t = next;
                goto run;
            }
            finish_post_action(p, t, now);
        }
        if (__builtin_expect(now > p->os_turn_ends, 0)) {
            /* Before the pop, so others may take every ready thread while
             * the CPU is away; out of the reader section (a resize waits
             * for it). */
            ready_leave(p);
            now = os_turn_end(p, now);
            p->decided_tsc = now;
            ready_enter(p);
        }
        bool stop = atomic_load_explicit(&p->terminate, memory_order_acquire);
        t = stop ? NULL : ready_pop(p, now);
        ready_leave(p);
        /* Here, not above: p->current is NULL, so a preemption signal
         * taken inside the poll never mistakes the scheduler for a thread. */
        io_tick(p->io);
        if (!t && !stop) {
            do {
                t = idle(p);
                stop = atomic_load_explicit(&p->terminate, memory_order_acquire);
                p->decided_tsc = __builtin_ia32_rdtsc();
                p->clock_countdown = 1;
                if (!t && !stop)
                    t = ready_pop(p, p->decided_tsc);
            } while (!t && !stop);
            if (t)
                idle_pass_on(p);
        }
        if (!t)
            return;
    run:
        p->current = t;
        t->last_processor = p->handle;
        THREAD_TRANSITION(t, CFA_THREAD_RUNNING);
        atomic_store_explicit(&t->state, CFA_THREAD_RUNNING, memory_order_relaxed);
        atomic_store_explicit(&p->switches, atomic_load_explicit(&p->switches, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        if (__builtin_expect(t->current->ctx.sp == NULL, 0))
            thread_prime(t); /* its first run */
        context_switch(&p->sched, t->current);
    }
}

void processor_init_state(struct cfa_processor_state *s, struct cfa_processor *handle,
                          struct cfa_cluster *cl)
{
    s->handle = handle;
    s->cluster = cl;
    s->decided_tsc = __builtin_ia32_rdtsc();
    idle_sleeper_init(&s->sleeper);
    ready_queue_add_processor(cl->state, s);
    atomic_fetch_add(&cl->state->nprocs, 1);
    struct cfa_processor_state *sole = registry_add_processor(s);
    if (sole)
        one_processor_quiesce(sole); /* before s's kernel thread exists */
}

/* A processor is started when cfa_processor_start returns: its kernel
 * thread has set its I/O up (a ring, an eventfd; or the fallback engine,
 * and any warning about it is printed). So a program that counts its
 * descriptors after adding processors sees all of theirs, and the
 * starter, not a later moment, meets a failure to set them up. It is
 * stopped when cfa_processor_stop returns: its kernel thread has left.
 *
 * Each of the two steps (`up`, `left`) is a one-shot wake-up from the
 * processor's kernel thread to the thread waiting for it (io_wakeup.h:
 * the waiter consumes exactly that unpark, other permits survive, and the
 * deadlock check counts the wait as pending). A starter that is a kernel
 * thread of the program's own, not a user thread, waits on a futex. */
enum { STEP_WAITING = 0, STEP_DONE = 1 };

static void report_step(_Atomic int *step, struct cfa_thread *waiter)
{
    if (waiter) {
        (void)wakeup_claim(step, STEP_WAITING, STEP_DONE); /* the only reporter: always wins */
        wakeup_deliver(waiter, step, STEP_DONE);
        return;
    }
    atomic_store_explicit(step, STEP_DONE, memory_order_release);
    syscall(SYS_futex, step, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void wait_step(_Atomic int *step, struct cfa_thread *waiter, const char *reason)
{
    if (waiter) {
        wakeup_wait(step, STEP_WAITING, reason);
        return;
    }
    while (atomic_load_explicit(step, memory_order_acquire) != STEP_DONE)
        syscall(SYS_futex, step, FUTEX_WAIT_PRIVATE, STEP_WAITING, NULL, NULL, 0);
}

static void *processor_kthread(void *arg)
{
    struct cfa_processor_state *s = arg;
    cfa_tls_processor = s;
    s->errno_slot = &errno;
    context_adopt_native(&s->sched);
    fault_thread_enter(s);
    io_processor_init(s);
    registry_processor_signalable(s, true);
    ready_record_cache(s);
    report_step(&s->up, s->starter);
    processor_loop(s);
    /* No program code runs here any more, and an ending kernel thread
     * must take no process signal (kthread.h). */
    kthread_block_signals();
    if (cfa_test_hook)
        cfa_test_hook(CFA_STEP_PROCESSOR_LEFT);
    stack_cache_flush(s);
    io_processor_fini(s);
    registry_processor_signalable(s, false);
    ready_queue_remove_processor(s->cluster->state, s);
    atomic_fetch_sub(&s->cluster->state->nprocs, 1);
    fault_thread_leave(s);
    cfa_tls_processor = NULL;
    report_step(&s->left, s->stopper);
    runtime_kthread_leave();
    return NULL;
}

bool processor_fork_child(struct cfa_processor_state *s, bool forking)
{
    if (atomic_load(&s->left) == STEP_DONE) {
        registry_remove_processor(s); /* its stopper did not survive the fork */
        return false;
    }
    s->run_next = NULL;
    s->run_next_streak = 0;
    atomic_store(&s->terminate, false);
    s->starter = s->stopper = NULL;
    atomic_store(&s->quiesce_wanted, false);
    if (s->sleeper.fd >= 0)
        idle_sleeper_fini(&s->sleeper); /* the parent's: this descriptor only */
    io_processor_forget(s);
    if (forking) {
        idle_sleeper_init(&s->sleeper);
        io_processor_init(s);
        s->restart = false;
        return false;
    }
    s->current = NULL;
    s->post = POST_NONE;
    s->stack_cache = NULL; /* its kernel thread was half-way through it, maybe */
    s->stack_cached = 0;
    s->altstack = NULL;
    s->signalable = false;
    atomic_store_explicit(&s->sleeper.listed, false, memory_order_relaxed);
    /* Runs nothing until it restarts: asleep, for the deadlock check. */
    atomic_store(&s->sleeper.state, IDLE_SLEEP);
    atomic_store(&s->up, STEP_WAITING);
    s->restart = true;
    return true;
}

void processor_restart(struct cfa_processor_state *s)
{
    s->restart = false;
    idle_sleeper_init(&s->sleeper);
    runtime_kthread_enter(); /* before it exists, as at a start */
    int err = pthread_create(&s->kthread, NULL, processor_kthread, s);
    if (err)
        cfa_fatal("cannot restart a processor's kernel thread after fork(): %s", strerror(err));
}

void cfa_processor_start(struct cfa_processor *p)
{
    if (p->state)
        cfa_fatal("processor %p started twice", (void *)p);
    fork_revive();
    struct cfa_cluster *cl = p->cluster ? p->cluster : cfa_current_cluster();
    if (!cl->state)
        cfa_fatal("processor started on cluster %s before cfa_cluster_init", cl->name ? cl->name : "(unnamed)");
    p->cluster = cl;
    struct cfa_processor_state *s = cache_aligned_zalloc(sizeof *s);
    if (!s)
        cfa_fatal("out of memory starting a processor");
    processor_init_state(s, p, cl);
    s->starter = this_thread();
    p->state = s;
    /* Counted before it exists, so the deadlock check never sees a kernel
     * thread it cannot account for (it would stay silent). */
    runtime_kthread_enter();
    int err = pthread_create(&s->kthread, NULL, processor_kthread, s);
    if (err)
        cfa_fatal("cannot start a processor's kernel thread: %s", strerror(err));
    wait_step(&s->up, s->starter, "processor start");
}

void cfa_processor_stop(struct cfa_processor *p)
{
    struct cfa_processor_state *s = p->state;
    if (!s)
        return;
    if (s->is_main)
        cfa_fatal("the main processor cannot be stopped");
    fork_revive();
    struct cfa_thread *self = this_thread();
    if (!self)
        cfa_fatal("cfa_processor_stop called outside a user thread");
    s->stopper = self;
    /* In a reader section: s closes its eventfd only under the writer side
     * (ready_queue_remove_processor), so the wake below cannot hit a
     * closed descriptor. */
    struct ready_queue *q = &p->cluster->state->ready;
    ready_queue_enter_external(q);
    atomic_store(&s->terminate, true);
    idle_wake(&p->cluster->state->idle, &s->sleeper);
    ready_queue_leave_external(q);
    /* If we run on s itself, parking hands s back to its loop, which then
     * sees `terminate`, leaves and unparks us on another processor. */
    wait_step(&s->left, self, "processor stop");
    pthread_join(s->kthread, NULL);
    registry_remove_processor(s);
    free(s);
    p->state = NULL;
}

struct cfa_processor *cfa_processor_new(struct cfa_cluster *cl)
{
    struct cfa_processor *p = calloc(1, sizeof *p);
    if (!p)
        cfa_fatal("out of memory creating a processor");
    p->cluster = cl;
    cfa_processor_start(p);
    return p;
}

void cfa_processor_delete(struct cfa_processor *p)
{
    if (!p)
        return;
    cfa_processor_stop(p);
    free(p);
}

unsigned cfa_cluster_processor_count(struct cfa_cluster *cl)
{
    return cl->state ? atomic_load(&cl->state->nprocs) : 0;
}
