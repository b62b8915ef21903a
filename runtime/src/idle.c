/* idle.c: idle sleep, every step of its protocol (see idle.h): the idle
 * stack, the benaphores and eventfds, and a processor going idle (I1-I5). */
#include "idle.h"
#include "cluster.h"
#include "deadlock.h"
#include "forkjoin.h"
#include "invariant.h"
#include "io_processor.h"
#include "processor.h"
#include "ready_queue.h"
#include "resize_lock.h"
#include "spinlock.h"

#include <cfa/runtime.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

/* How long an idle processor keeps making cheap checks, after its
 * exhaustive search and before it commits to sleep, in TSC cycles: at
 * most IDLE_SPIN_TSC, which catches work handed over within a microsecond
 * or so. After IDLE_SPIN_MISSES spins in a row that found nothing the
 * spin halves, down to IDLE_SPIN_MIN_TSC; a spin that finds work restores
 * it in full. So a processor whose work arrives tens of microseconds
 * apart (a server's requests) stops spending on spins that never pay,
 * CPU its neighbours on the same cores could use, and one whose work
 * follows within the spin keeps catching it. */
enum {
    IDLE_SPIN_TSC = 2560,    /* docs/scheduler.md#tunables */
    IDLE_SPIN_MIN_TSC = 160, /* docs/scheduler.md#tunables */
    IDLE_SPIN_MISSES = 8,    /* docs/scheduler.md#tunables */
};

/* Debug build: s is on l's stack (l locked) exactly when it says so, and
 * the stack's links agree. */
static void check_membership(struct idle_list *l, struct idle_sleeper *s)
{
#ifdef CFA_DEBUG
    bool found = false;
    for (struct idle_sleeper *it = l->head; it; it = it->next) {
        cfa_assert("idle stack links agree", it->next == NULL || it->next->prev == it);
        found |= it == s;
    }
    cfa_assert("a processor is on the idle stack exactly while listed",
               found == atomic_load_explicit(&s->listed, memory_order_relaxed));
#endif
}

void idle_sleeper_init(struct idle_sleeper *s)
{
    s->fd = eventfd(0, EFD_CLOEXEC);
    if (s->fd < 0)
        cfa_fatal("cannot create a processor's eventfd: %s", strerror(errno));
    atomic_store(&s->state, IDLE_AWAKE);
    atomic_store_explicit(&s->listed, false, memory_order_relaxed);
    s->prev = s->next = NULL;
    atomic_store_explicit(&s->spin_tsc, IDLE_SPIN_TSC, memory_order_relaxed);
    s->spin_misses = 0;
}

void idle_sleeper_fini(struct idle_sleeper *s)
{
    close(s->fd);
    s->fd = -1;
}

void idle_list_fork_child(struct idle_list *l)
{
    atomic_store(&l->lock, 0);
    l->head = NULL;
    atomic_store(&l->first, NULL);
}

bool idle_try_register(struct idle_list *l, struct idle_sleeper *s)
{
    if (!spin_try_lock(&l->lock)) {
        atomic_fetch_add_explicit(&l->register_busy, 1, memory_order_relaxed);
        return false;
    }
    STAT_ADD(l->registrations, 1);
    check_membership(l, s);
    cfa_assert("a processor is on its cluster's idle stack at most once",
               !atomic_load_explicit(&s->listed, memory_order_relaxed));
    cfa_assert("idle benaphore: a processor registers only while awake or searching",
               atomic_load_explicit(&s->state, memory_order_relaxed) != IDLE_SLEEP);
    atomic_store_explicit(&s->state, IDLE_SEARCH, memory_order_relaxed);
    s->prev = NULL;
    s->next = l->head;
    if (l->head)
        l->head->prev = s;
    l->head = s;
    atomic_store_explicit(&s->listed, true, memory_order_relaxed);
    atomic_store_explicit(&l->first, s, memory_order_seq_cst);
    spin_unlock(&l->lock);
    /* The registration must be visible before the search reads any lane. */
    atomic_thread_fence(memory_order_seq_cst);
    return true;
}

void idle_unregister(struct idle_list *l, struct idle_sleeper *s)
{
    spin_lock(&l->lock);
    check_membership(l, s);
    if (atomic_load_explicit(&s->listed, memory_order_relaxed)) {
        if (s->prev)
            s->prev->next = s->next;
        else
            l->head = s->next;
        if (s->next)
            s->next->prev = s->prev;
        atomic_store_explicit(&s->listed, false, memory_order_relaxed);
        /* A notifier may have taken `first` (to wake us or the old top);
         * the processor leaving the list republishes the current top. */
        atomic_store_explicit(&l->first, l->head, memory_order_release);
    }
    spin_unlock(&l->lock);
}

bool idle_sleep(struct idle_list *l, struct cfa_processor_state *p)
{
    struct idle_sleeper *s = &p->sleeper;
    int searching = IDLE_SEARCH;
    cfa_assert("idle benaphore: only a listed processor commits to sleep",
               atomic_load_explicit(&s->listed, memory_order_relaxed));
    if (!atomic_compare_exchange_strong(&s->state, &searching, IDLE_SLEEP)) {
        cfa_assert("idle benaphore: SEARCH leaves only for SLEEP or AWAKE", searching == IDLE_AWAKE);
        return false; /* notified during the search (AWAKE stays): no system call on either side */
    }
    atomic_fetch_add_explicit(&l->sleeps, 1, memory_order_relaxed);
    deadlock_check(p);
    IDLE_TEST_HOOK(CFA_STEP_SLEEPING);
    io_sleep(p);
    /* Awake, whoever woke it: a notifier (state AWAKE already) or the
     * processor's ring (a completion or a timer; state still SLEEP, which
     * the deadlock check must not keep seeing). */
    atomic_store_explicit(&s->state, IDLE_AWAKE, memory_order_relaxed);
    return true;
}

static void wake_sleeper(struct idle_list *l, struct idle_sleeper *s)
{
    if (atomic_exchange(&s->state, IDLE_AWAKE) == IDLE_SLEEP) {
        uint64_t one = 1;
        atomic_fetch_add_explicit(&l->notify_syscalls, 1, memory_order_relaxed);
        while (write(s->fd, &one, sizeof one) < 0 && errno == EINTR)
            ;
    }
}

void idle_notify_slow(struct idle_list *l)
{
    struct idle_sleeper *s = atomic_exchange(&l->first, NULL);
    if (s) {
        IDLE_TEST_HOOK(CFA_STEP_NOTIFY_TOOK);
        atomic_fetch_add_explicit(&l->wakeups, 1, memory_order_relaxed);
        wake_sleeper(l, s);
    }
}

void idle_wake(struct idle_list *l, struct idle_sleeper *s)
{
    wake_sleeper(l, s);
}

/* ---- a processor going idle: steps I1-I5 ---------------------------- */

/* Adapts the next spin's length to this one's outcome (IDLE_SPIN_TSC). */
static void spin_outcome(struct idle_list *l, struct idle_sleeper *s, bool found)
{
    if (found) {
        atomic_store_explicit(&s->spin_tsc, IDLE_SPIN_TSC, memory_order_relaxed);
        s->spin_misses = 0;
        atomic_fetch_add_explicit(&l->spins_found, 1, memory_order_relaxed);
        return;
    }
    atomic_fetch_add_explicit(&l->spins_missed, 1, memory_order_relaxed);
    if (++s->spin_misses < IDLE_SPIN_MISSES)
        return;
    s->spin_misses = 0;
    unsigned spin = atomic_load_explicit(&s->spin_tsc, memory_order_relaxed);
    if (spin / 2 >= IDLE_SPIN_MIN_TSC)
        atomic_store_explicit(&s->spin_tsc, spin / 2, memory_order_relaxed);
}

/* Cheap: looks at the lanes' hints only (under our reader flag: the lane
 * arrays may be replaced by a resize otherwise). */
static bool any_ready_hint(struct cfa_processor_state *p)
{
    ready_enter(p);
    bool any = ready_queue_any(&p->cluster->state->ready);
    ready_leave(p);
    return any;
}

struct cfa_thread *idle_search_then_sleep(struct cfa_processor_state *p, bool *blocked)
{
    struct cfa_cluster_state *cs = p->cluster->state;
    if (io_idle(p))
        return NULL; /* I/O or timers made threads ready: look again */
    IDLE_TEST_HOOK(CFA_STEP_POLLED);
    if (!idle_try_register(&cs->idle, &p->sleeper)) { /* I1 */
        cpu_relax(); /* others are entering or leaving idle: search again */
        return NULL;
    }
    IDLE_TEST_HOOK(CFA_STEP_REGISTERED);
    bool left;
    struct cfa_thread *t = ready_pop_exhaustive(p, &left); /* I2 */
    if (!t && !left && !atomic_load(&p->terminate)) {
        forkjoin_idle(p->cluster); /* a task waiting for a worker: wakes one, which notifies p */
        IDLE_TEST_HOOK(CFA_STEP_SEARCHED);
        unsigned spin = atomic_load_explicit(&p->sleeper.spin_tsc, memory_order_relaxed);
        uint64_t spin_ends = __builtin_ia32_rdtsc() + spin;
        bool woken;
        while (!(woken = idle_notified(&p->sleeper) || any_ready_hint(p) || io_completion_hint(p->io) ||
                         atomic_load_explicit(&p->terminate, memory_order_relaxed)) &&
               __builtin_ia32_rdtsc() < spin_ends)
            cpu_relax();
        spin_outcome(&cs->idle, &p->sleeper, woken);
        if (!woken && idle_sleep(&cs->idle, p)) /* I3 */
            *blocked = true;
        IDLE_TEST_HOOK(CFA_STEP_WOKEN);
    }
    idle_unregister(&cs->idle, &p->sleeper); /* I4 */
    IDLE_TEST_HOOK(CFA_STEP_UNREGISTERED);
    return t;
}

/* Step I5: the notifiers that found `first` NULL while p was being woken
 * counted on p, and so did the pushes its io_idle held (p may have taken
 * another thread), and the fork-join spawns that found it NULL and so
 * woke no worker (forkjoin.c, "Idle processor"). p takes one thread; if a
 * lane may still hold one and another processor is idle, wake it, which
 * passes the duty on in turn.
 * Without this, a burst of pushes from another cluster wakes one
 * processor, which takes the first thread; if that thread never yields
 * (preemption off), the rest wait in the lanes while the other processors
 * sleep. */
void idle_pass_on(struct cfa_processor_state *p)
{
    struct cfa_cluster_state *cs = p->cluster->state;
    IDLE_TEST_HOOK(CFA_STEP_PASS_ON);
    /* The republished `first` (I4) before the lanes: see ready_queue_may_hold. */
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&cs->idle.first, memory_order_relaxed))
        return; /* nobody idle, or a notifier took the top: that one passes on */
    ready_enter(p);
    if (ready_queue_may_hold(&cs->ready))
        idle_notify(&cs->idle);
    ready_leave(p);
    forkjoin_idle(p->cluster); /* a spawn that found `first` taken counted on p too */
}
