/* asym_fence.h: asymmetric fences, for a store-then-load handshake
 * (Dekker's pattern) between a hot side, run millions of times, and a
 * cold side, run rarely.
 *
 *   hot:  store A; asym_fence_light(); load B;
 *   cold: store B; asym_fence_heavy(); load A;
 * Either the hot side sees B or the cold side sees A.
 *
 * With membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED) registered
 * (asym_fence_init, at boot and again in a child of fork), the light
 * fence is a compiler barrier and the heavy one makes every CPU running
 * this process execute a full barrier, so a hot side's store before it is
 * visible and a hot side's load after it sees the cold store. Without
 * membarrier both are full fences.
 *
 * Users: the resizing lock's readers (resize_lock.h), fork-join's spawn
 * against an idle worker going to sleep (forkjoin.c).
 */
#ifndef CFA_ASYM_FENCE_H
#define CFA_ASYM_FENCE_H

#include <stdatomic.h>
#include <stdbool.h>

/* Set once at boot (and in a child of fork), before a second processor. */
extern bool asym_fence_membarrier;

/* Registers with membarrier; false when the kernel has none. */
bool asym_fence_init(void);

static inline void asym_fence_light(void)
{
    if (__builtin_expect(asym_fence_membarrier, 1))
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
}

/* Out of line: a system call (a few microseconds) or a fence. */
void asym_fence_heavy(void);

#endif
