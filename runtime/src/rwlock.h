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
 * Everything spins (spinlock.h: a long wait yields the CPU): readers hold
 * their flag for a few hundred cycles, and writers are rare.
 */
#ifndef CFA_RWLOCK_H
#define CFA_RWLOCK_H

#include "spinlock.h"

static inline void rw_read_lock(_Atomic int *global, _Atomic int *mine)
{
    for (;;) {
        spin_wait_clear(global);
        if (atomic_exchange_explicit(mine, 1, memory_order_seq_cst) == 0)
            break;
        spin_wait_clear(mine);
    }
}

static inline void rw_read_unlock(_Atomic int *mine)
{
    atomic_store_explicit(mine, 0, memory_order_release);
}

#endif
