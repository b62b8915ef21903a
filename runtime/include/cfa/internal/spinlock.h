/* cfa/internal/spinlock.h: the short critical sections of the runtime and
 * the standard library (internal: not part of the user API).
 *
 * Test-and-test-and-set with a pause. Held only for a few instructions
 * (queue links, idle lists, join lists), never across a context switch or
 * a system call, so spinning is cheaper than sleeping. `try` never spins:
 * the scheduler uses it where another lane or another moment will do.
 *
 * A wait longer than SPINS_BEFORE_YIELD rounds gives the CPU to the kernel
 * (sched_yield) between looks: the holder is then a kernel thread the
 * kernel is not running (preempted inside its few instructions), and
 * spinning only keeps it off the CPU. That happens when processors
 * outnumber CPUs, and on a busy machine at any size. Growing a cluster
 * from 1 to 192 processors on 2 CPUs and back under a light load
 * (test/topology/resize_big.c; machine load average 31-70): 57-62 s with
 * every wait spinning; 11-22 s (median 13.7) with only the resizing
 * lock's waits yielding; 4-13 s (median 8.0) with every spinlock's.
 */
#ifndef CFA_INTERNAL_SPINLOCK_H
#define CFA_INTERNAL_SPINLOCK_H

#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>

enum { SPINS_BEFORE_YIELD = 256 }; /* docs/scheduler.md#tunables */

static inline void cpu_relax(void) { __builtin_ia32_pause(); }

static inline bool spin_try_lock(_Atomic int *lock)
{
    return atomic_load_explicit(lock, memory_order_relaxed) == 0 &&
           atomic_exchange_explicit(lock, 1, memory_order_acquire) == 0;
}

/* Waits until *flag is clear: spins, then yields the CPU between looks. */
static inline void spin_wait_clear(_Atomic int *flag)
{
    for (unsigned spins = 0; atomic_load_explicit(flag, memory_order_relaxed); spins++) {
        if (spins < SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

static inline void spin_lock(_Atomic int *lock)
{
    while (!spin_try_lock(lock))
        spin_wait_clear(lock);
}

static inline void spin_unlock(_Atomic int *lock)
{
    atomic_store_explicit(lock, 0, memory_order_release);
}

#endif
