/* topology.h: which cache instance a CPU belongs to (thesis 4.4.3).
 *
 * Read once, from hwloc (or /sys: topology.c), the first time a second processor starts (a
 * program with one processor never pays for it). Until then, and on
 * machines with a single last-level cache, every CPU is in instance 0 and
 * the scheduler skips the lookups entirely.
 *
 * A topology that is not this machine's (hwloc's HWLOC_SYNTHETIC, e.g.
 * "pack:2 numa:2 l3:4 core:8 pu:2", or HWLOC_XMLFILE) is *simulated*: the
 * CPU a processor reports is then not sched_getcpu() but the PU at its
 * position among the cluster's processors (position i on the i-th PU in
 * hwloc's logical order, wrapping around), as if each processor were
 * pinned there. That is how the tests run the cache-aware scheduler of a
 * 256-PU machine on two CPUs.
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
    /* acquire: the map topology_load filled before setting it */
    return atomic_load_explicit(&topology_several_caches, memory_order_acquire);
}

/* Cache instance of `cpu`; 0 when unknown. */
unsigned topology_cache_of(int cpu);

/* The CPU the processor at `position` runs on: sched_getcpu(), or under a
 * simulated topology the position's PU. */
int topology_cpu_of(unsigned position);

/* What a reader of the topology fills in. */
struct topology_map {
    unsigned *cache_of_cpu; /* indexed by OS CPU number */
    int ncpus;              /* entries of cache_of_cpu */
    unsigned instances;     /* of the last-level cache */
    int *simulated_pus;     /* OS numbers of the PUs in logical order; NULL on this machine */
    int nsimulated;
};
/* topology_hwloc.c: false when the program is not linked with hwloc or
 * hwloc fails. */
bool topology_read_hwloc(struct topology_map *m);
/* topology_sysfs.c: from <root>/sys/devices/system/cpu ("" for this
 * machine; any other root is a simulated machine, as hwloc's are). */
bool topology_read_sysfs(struct topology_map *m, const char *root);

#endif
