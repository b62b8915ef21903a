/* idle.h: idle sleep (thesis 6.2-6.4, Figure 6.5).
 *
 * Each processor has an eventfd behind a three-state benaphore: SEARCH
 * (registered idle, still looking for work), SLEEP (committed to block
 * until its eventfd is written or its ring completes something: io_sleep,
 * io_processor.h), AWAKE (notified).
 * A cluster keeps its idle processors on a stack under one lock, plus an
 * atomic pointer `first` to the top sleeper, which notifiers take with an
 * exchange so that only one of them pays for waking a processor.
 *
 * The protocol (numbered as in docs/idle-sleep.md and the SPIN model,
 * runtime/verify/idle_sleep.pml); idle.c has the idle processor's steps
 * (idle_search_then_sleep, idle_pass_on), and a notifier's N2 is
 * idle_notify, called by ready_push (ready_queue.c) after N1:
 *   idle processor  I1 register: SEARCH, push on the stack, publish `first`,
 *                      full fence;
 *                   I2 search every lane, taking each lane's lock; the
 *                      head of a lane of a processor that is not listed,
 *                      inside its steal grace, is left to that processor,
 *                      and then I3 is skipped (the thread was seen);
 *                   I3 commit SEARCH -> SLEEP (unless notified: AWAKE) and
 *                      block (io_sleep);
 *                   I4 unregister: off the stack, `first` := the new top;
 *                   I5 pass on: once it holds a thread, full fence, and if
 *                      `first` is set and a lane may hold a thread, notify.
 *   notifier        N1 make the thread visible under a lane lock;
 *                   N2 load `first` (after that lock, so ordered by it),
 *                      exchange it with NULL, flip the sleeper to AWAKE and
 *                      write its eventfd only if it was SLEEP.
 * If the search missed the thread, the notifier's lane lock came after the
 * searcher's, so it sees the registration. A notifier that finds SEARCH
 * only flips it to AWAKE and skips the system call; the searcher then
 * skips its block: neither pays a system call (the benaphore). A notifier
 * that finds `first` NULL counts on the processor another notifier took
 * from it: that one wakes, republishes `first` (I4), takes ONE thread, and
 * I5 passes the wake-up on, so a burst of pushes wakes as many sleepers as
 * it needs even when the first thread taken never yields.
 *
 * Lifetime: notifiers run inside a reader section of the cluster's
 * resizing lock, and a processor unregisters and closes its eventfd only
 * under the writer side, so a pointer taken from `first` stays valid.
 *
 * Membership: a sleeper is on its cluster's stack at most once, exactly
 * while `listed`; the stack's links are consistent (prev/next agree). The
 * benaphore: a processor registers only while AWAKE or SEARCH (never
 * while committed to SLEEP); SEARCH leaves only for SLEEP (its own CAS)
 * or AWAKE (a notifier); only a listed sleeper commits to SLEEP. The debug
 * build checks these (idle.c, invariant.h).
 */
#ifndef CFA_IDLE_H
#define CFA_IDLE_H

#include <cfa/test_hook.h>
#include <stdatomic.h>
#include <stdbool.h>

struct cfa_processor_state;
struct cfa_thread;

/* A protocol step for the tests (cfa/test_hook.h): nothing unless the
 * program defines cfa_test_hook. */
#define IDLE_TEST_HOOK(step)       \
    do {                           \
        if (cfa_test_hook)         \
            cfa_test_hook(step);   \
    } while (0)

enum idle_state { IDLE_SEARCH, IDLE_SLEEP, IDLE_AWAKE };

struct idle_sleeper {
    int                  fd;      /* eventfd */
    _Atomic int          state;   /* enum idle_state */
    _Atomic bool         listed;  /* on the stack; written under the list lock, read by
                                     other processors' searches (ready_pop_exhaustive) */
    struct idle_sleeper *prev, *next;
    /* The spin before sleeping (idle.c, spin_outcome): its length in TSC
     * cycles (atomic: CFA_STATS reads it while the processor runs) and
     * the misses since it last changed; written by its processor only. */
    _Atomic unsigned     spin_tsc;
    unsigned             spin_misses;
};

struct idle_list {
    _Atomic int          lock;
    struct idle_sleeper *head;
    _Atomic(struct idle_sleeper *) first;
    _Atomic unsigned long sleeps, wakeups, notify_syscalls;  /* statistics */
    _Atomic unsigned long spins_found, spins_missed;        /* statistics */
    _Atomic unsigned long registrations; /* written under `lock` */
    _Atomic unsigned long register_busy; /* registrations that found `lock` taken */
};

void idle_sleeper_init(struct idle_sleeper *s);
void idle_sleeper_fini(struct idle_sleeper *s);
/* In a child made by fork() (fork.c, step C3): no sleeper listed, the
 * lock free; each processor's sleeper is set up anew (processor.c). */
void idle_list_fork_child(struct idle_list *l);

/* Registers s as idle and searching. Fails (returns false) rather than
 * wait when the list lock is busy: the caller searches again instead. */
bool idle_try_register(struct idle_list *l, struct idle_sleeper *s);
void idle_unregister(struct idle_list *l, struct idle_sleeper *s);

/* Commits p to sleep unless notified meanwhile, runs the deadlock check,
 * and blocks until p's eventfd is written or its ring completes something
 * (io_sleep). Returns whether it blocked (or at least offered to). */
bool idle_sleep(struct idle_list *l, struct cfa_processor_state *p);

/* Whether s was notified since it registered (it should search again). */
static inline bool idle_notified(struct idle_sleeper *s)
{
    return atomic_load_explicit(&s->state, memory_order_relaxed) == IDLE_AWAKE;
}

/* Wakes one idle processor, if any: one relaxed load when none sleeps. */
void idle_notify_slow(struct idle_list *l);
static inline void idle_notify(struct idle_list *l)
{
    if (atomic_load_explicit(&l->first, memory_order_relaxed))
        idle_notify_slow(l);
}

/* Wakes this sleeper in particular (processor stop). */
void idle_wake(struct idle_list *l, struct idle_sleeper *s);

/* Steps I1-I4 for processor p, which found nothing to run: poll its I/O
 * and timers, register (I1), search every lane (I2), spin briefly, sleep
 * (I3), unregister (I4). Returns a thread found on the way, or NULL to
 * make the caller look again; sets *blocked if the kernel thread blocked
 * (or at least offered to). */
struct cfa_thread *idle_search_then_sleep(struct cfa_processor_state *p, bool *blocked);

/* Step I5, out of line: p went idle and now holds a thread; wakes another
 * idle processor if a lane may still hold one. */
void idle_pass_on(struct cfa_processor_state *p);

#endif
