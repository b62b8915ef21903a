/* std_lock.h: how the library takes its spinlocks (the runtime's, from
 * spinlock.h; released with spin_unlock).
 *
 * A critical section of the library is a few dozen instructions and is
 * never preempted by the runtime (waitq.h), so a lock still held after
 * STD_LOCK_SPINS polls means the holder's kernel thread was descheduled by
 * the operating system (the machine has more runnable kernel threads than
 * cores). Spinning on would only burn the core it needs; sched_yield hands
 * the core back and the holder can finish. It is not a wait: no kernel
 * object is slept on and no user thread blocks (the runtime's one-shot
 * wake-ups do the same, io_wakeup.h). Measured on the 4-producer,
 * 4-consumer channel benchmark on 2 processors of a loaded 2-core machine:
 * the median went from about 66 to 55 ns per value, and the spread shrank.
 */
#ifndef CFA_STD_SRC_STD_LOCK_H
#define CFA_STD_SRC_STD_LOCK_H

#include <sched.h>
#include <stdatomic.h>

#include "spinlock.h" /* the runtime's (runtime/src) */

enum { STD_LOCK_SPINS = 64 };

static inline void std_lock(_Atomic int *lock)
{
    unsigned spins = 0;
    while (!spin_try_lock(lock))
        while (atomic_load_explicit(lock, memory_order_relaxed)) {
            if (spins < STD_LOCK_SPINS) {
                spins++;
                cpu_relax();
            } else {
                sched_yield();
            }
        }
}

#endif
