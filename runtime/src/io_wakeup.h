/* io_wakeup.h: the one-shot wake-up of a parked thread, shared by I/O
 * futures (io_future.c), timed parks (timer.c) and a processor's start
 * and stop (processor.c).
 *
 * A record has a state word, WAITING while its thread waits. Whoever ends
 * the wait (a completion, a timeout, a waker) first claims the record with
 * one compare-and-swap from WAITING to `final | WAKE_CLAIMED`, so exactly
 * one party wins; the winner unparks the thread, then stores `final`.
 * Losers touch nothing further.
 *
 * The waiter parks until the word leaves WAITING, then waits (a few
 * instructions: the winner is between its CAS and its store, in runtime
 * code that is never preempted) until it reads `final`. From then on
 * nobody touches the record and the waiter may let it go (it lives on the
 * waiter's stack or in a caller-owned future).
 *
 * Permits: other parties may unpark the thread meanwhile (a permit meant
 * for a later park). The waiter counts its parks and gives back all but
 * one: whatever the interleaving, it consumes exactly the winner's permit,
 * so the thread's permit count is what it would have been without the
 * wait, and no permit from the winner is left over for its next park.
 */
#ifndef CFA_IO_WAKEUP_H
#define CFA_IO_WAKEUP_H

#include "deadlock.h"
#include "thread_internal.h"
#include "spinlock.h"

#include <cfa/runtime.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

enum { WAKE_CLAIMED = 0x100 };

/* Claims the record: true for exactly one caller while it is `waiting`. */
static inline bool wakeup_claim(_Atomic int *word, int waiting, int final)
{
    int expected = waiting;
    return atomic_compare_exchange_strong_explicit(word, &expected, final | WAKE_CLAIMED,
                                                   memory_order_acq_rel, memory_order_relaxed);
}

/* The winner's second half. t was read before: after the store below the
 * record may be gone. */
static inline void wakeup_deliver(struct cfa_thread *t, _Atomic int *word, int final)
{
    cfa_unpark(t);
    atomic_store_explicit(word, final, memory_order_release);
}

/* One step of waiting for a winner between its claim and its last store:
 * a few instructions of runtime code, never preempted by the runtime, but
 * its kernel thread may be descheduled, hence the yield after a while.
 * Also the wait of monitors, fork-join groups and pthread objects for
 * their wakers (monitor.c, forkjoin.c, pthread_wait.c). */
static inline void wakeup_pause(unsigned *spins)
{
    if (++*spins < 1024)
        cpu_relax();
    else
        sched_yield();
}

/* Parks the calling thread until a winner has delivered; returns `final`.
 * Counts as a pending wake-up for the deadlock detector meanwhile. */
static inline int wakeup_wait(_Atomic int *word, int waiting, const char *reason)
{
    struct cfa_thread *self = this_thread();
    unsigned parks = 0;
    int s;
    pending_wakeup_begin();
    do {
        cfa_park_for(reason);
        parks++;
        s = atomic_load_explicit(word, memory_order_acquire);
    } while (s == waiting);
    for (unsigned spins = 0; s & WAKE_CLAIMED; s = atomic_load_explicit(word, memory_order_acquire))
        wakeup_pause(&spins);
    pending_wakeup_end();
    while (--parks)
        cfa_unpark(self);
    return s;
}

#endif
