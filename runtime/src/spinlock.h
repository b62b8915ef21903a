/* spinlock.h: the runtime's short critical sections.
 *
 * Test-and-test-and-set with a pause. Held only for a few instructions
 * (queue links, idle lists, join lists), never across a context switch or
 * a system call, so spinning is cheaper than sleeping. `try` never spins:
 * the scheduler uses it where another lane or another moment will do.
 */
#ifndef CFA_SPINLOCK_H
#define CFA_SPINLOCK_H

#include <stdatomic.h>
#include <stdbool.h>

static inline void cpu_relax(void) { __builtin_ia32_pause(); }

static inline bool spin_try_lock(_Atomic int *lock)
{
    return atomic_load_explicit(lock, memory_order_relaxed) == 0 &&
           atomic_exchange_explicit(lock, 1, memory_order_acquire) == 0;
}

static inline void spin_lock(_Atomic int *lock)
{
    while (!spin_try_lock(lock))
        while (atomic_load_explicit(lock, memory_order_relaxed))
            cpu_relax();
}

static inline void spin_unlock(_Atomic int *lock)
{
    atomic_store_explicit(lock, 0, memory_order_release);
}

#endif
