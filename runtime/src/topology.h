/* topology.h: which cache instance a CPU belongs to (thesis 4.4.3).
 *
 * Read once, from hwloc, the first time a second processor starts (a
 * program with one processor never pays for it). Until then, and on
 * machines with a single last-level cache, every CPU is in instance 0 and
 * the scheduler skips the lookups entirely.
 */
#ifndef CFA_TOPOLOGY_H
#define CFA_TOPOLOGY_H

#include <stdatomic.h>
#include <stdbool.h>

void topology_load(void);

/* Whether the CPUs span more than one last-level cache instance (false
 * before topology_load): when not, cache-aware helping has nothing to do. */
extern _Atomic bool topology_several_caches;
static inline bool topology_has_several_caches(void)
{
    return atomic_load_explicit(&topology_several_caches, memory_order_relaxed);
}

/* Cache instance of `cpu`; 0 when unknown. */
unsigned topology_cache_of(int cpu);

#endif
