/* std_lock.h: how the library takes its spinlocks (the runtime's, from
 * spinlock.h; released with spin_unlock).
 *
 * Contended, a lock is polled with exponential backoff (1, 2, 4 ... 256
 * pauses between polls): with both processors on one channel, polling at
 * full speed keeps its cache line moving between the cores while the holder
 * needs it. Measured on the 4-producer, 4-consumer benchmark on 2
 * processors of the 2-core machine: ~200 ns per value with a plain spin,
 * ~90-125 with the backoff (Go: ~120-165 in the same minutes).
 *
 * A critical section of the library is a few dozen instructions and is
 * never preempted by the runtime (waitq.h), so a lock still held after
 * STD_LOCK_YIELD_AFTER pauses means that the holder's kernel thread was
 * descheduled by the operating system; spinning on would only burn the
 * core it needs, so sched_yield hands the core back. That is no wait: no
 * kernel object is slept on, no user thread blocks (the runtime's one-shot
 * wake-ups do the same, io_wakeup.h).
 */
#ifndef CFA_STD_SRC_STD_LOCK_H
#define CFA_STD_SRC_STD_LOCK_H

#include <sched.h>
#include <stdatomic.h>

#include <cfa/internal/spinlock.h>

enum { STD_LOCK_MAX_BACKOFF = 256, STD_LOCK_YIELD_AFTER = 4096 };

static inline void std_lock(_Atomic int *lock)
{
    unsigned backoff = 1, paused = 0;
    while (!spin_try_lock(lock)) {
        do {
            if (paused >= STD_LOCK_YIELD_AFTER) {
                sched_yield();
                continue;
            }
            for (unsigned i = 0; i < backoff; i++)
                cpu_relax();
            paused += backoff;
            if (backoff < STD_LOCK_MAX_BACKOFF)
                backoff <<= 1;
        } while (atomic_load_explicit(lock, memory_order_relaxed));
    }
}

#endif
