/* rwlock.h: the resizing lock of thesis Figure 6.1.
 *
 * Readers are the processors of one cluster (push and pop of ready
 * threads); each has its own flag, so readers never share a cache line
 * with each other. Pushes from outside the cluster share one extra reader
 * flag, `external`. The writer (adding or removing a processor) takes the
 * global flag, then every reader flag: it then owns every per-processor
 * array of the cluster. Readers wait for the global flag first so that a
 * stream of readers cannot starve a writer.
 *
 * Everything spins: readers hold their flag for a few hundred cycles, and
 * writers are rare. But a wait longer than RW_SPINS_BEFORE_YIELD rounds
 * gives the CPU to the kernel (sched_yield) between rounds: the flag's
 * holder is then a kernel thread that is not running, and spinning only
 * keeps it off the CPU. That happens when processors outnumber CPUs and
 * on a busy machine at any size: growing a cluster from 1 to 192
 * processors on 2 CPUs and back, under a light load (test/topology/
 * resize_big.c), took 57-62 s with pure spinning and 8.7 s with the
 * yield (machine load average 44-70).
 */
#ifndef CFA_RWLOCK_H
#define CFA_RWLOCK_H

#include "spinlock.h"

#include <sched.h>

enum { RW_SPINS_BEFORE_YIELD = 256 };

/* Waits until *flag is clear: spins, then yields the CPU between looks. */
static inline void rw_wait_clear(_Atomic int *flag)
{
    for (unsigned spins = 0; atomic_load_explicit(flag, memory_order_relaxed); spins++) {
        if (spins < RW_SPINS_BEFORE_YIELD)
            cpu_relax();
        else
            sched_yield();
    }
}

/* Takes *flag (a reader's, or the global one) for the writer. */
static inline void rw_take(_Atomic int *flag)
{
    while (atomic_exchange_explicit(flag, 1, memory_order_acquire) != 0)
        rw_wait_clear(flag);
}

static inline void rw_read_lock(_Atomic int *global, _Atomic int *mine)
{
    for (;;) {
        rw_wait_clear(global);
        if (atomic_exchange_explicit(mine, 1, memory_order_seq_cst) == 0)
            break;
        rw_wait_clear(mine);
    }
}

static inline void rw_read_unlock(_Atomic int *mine)
{
    atomic_store_explicit(mine, 0, memory_order_release);
}

#endif
