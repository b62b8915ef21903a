/* idle.h: idle sleep (thesis 6.2-6.4, Figure 6.5).
 *
 * Each processor has an eventfd (an io_uring completion can write it too)
 * behind a three-state benaphore: SEARCH (registered idle, still looking
 * for work), SLEEP (committed to block on the eventfd), AWAKE (notified).
 * A cluster keeps its idle processors on a stack under one lock, plus an
 * atomic pointer `first` to the top sleeper, which notifiers take with an
 * exchange so that only one of them pays for waking a processor.
 *
 * The handshake that loses no wake-up (thesis 6.4):
 *   idle processor: register (SEARCH, publish `first`), full fence, then
 *                   search every lane taking each lane's lock, then commit
 *                   SEARCH -> SLEEP and block;
 *   notifier:       make the thread visible under a lane lock, then load
 *                   `first` (after that lock, so ordered by it).
 * If the search missed the thread, the notifier's lane lock came after the
 * searcher's, so it sees the registration. A notifier that finds SEARCH
 * only flips it to AWAKE and skips the system call; the searcher then
 * skips its read: neither pays the eventfd (the benaphore).
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

#include <stdatomic.h>
#include <stdbool.h>

enum idle_state { IDLE_SEARCH, IDLE_SLEEP, IDLE_AWAKE };

struct idle_sleeper {
    int                  fd;      /* eventfd */
    _Atomic int          state;   /* enum idle_state */
    bool                 listed;  /* on the stack; guarded by the list lock */
    struct idle_sleeper *prev, *next;
};

struct idle_list {
    _Atomic int          lock;
    struct idle_sleeper *head;
    _Atomic(struct idle_sleeper *) first;
    _Atomic unsigned long sleeps, wakeups, notify_syscalls;  /* statistics */
};

void idle_sleeper_init(struct idle_sleeper *s);
void idle_sleeper_fini(struct idle_sleeper *s);

/* Registers s as idle and searching. Fails (returns false) rather than
 * wait when the list lock is busy: the caller searches again instead. */
bool idle_try_register(struct idle_list *l, struct idle_sleeper *s);
void idle_unregister(struct idle_list *l, struct idle_sleeper *s);

/* Commits to sleep unless notified meanwhile; `before_block` runs just
 * before the system call (the deadlock check). Returns whether it made
 * the system call (the kernel thread blocked, or at least offered to). */
bool idle_sleep(struct idle_list *l, struct idle_sleeper *s, void (*before_block)(void *), void *arg);

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

#endif
