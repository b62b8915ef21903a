/* topology.c: CPU -> last-level cache instance. See topology.h.
 *
 * Owns the map and its one-time load. The map comes from hwloc when the
 * program is linked with it (topology_hwloc.c; its symbols are weak), else
 * from /sys directly (topology_sysfs.c): a program linked with
 * `cfacc -static` has no hwloc, whose static library needs a libudev.a
 * that Debian does not ship.
 */
#include "topology.h"
#include "spinlock.h"

#include <cfa/testing.h>
#include <sched.h>

static _Atomic int load_lock;
static _Atomic bool loaded;
_Atomic bool topology_several_caches;
static struct topology_map map;
static const char *sysfs_root_for_test; /* cfa_test_topology_from_sysfs */

void topology_load(void)
{
    if (atomic_load_explicit(&loaded, memory_order_acquire))
        return;
    spin_lock(&load_lock);
    if (!atomic_load_explicit(&loaded, memory_order_relaxed)) {
        bool read = sysfs_root_for_test ? topology_read_sysfs(&map, sysfs_root_for_test)
                                        : topology_read_hwloc(&map) || topology_read_sysfs(&map, "");
        if (read)
            atomic_store(&topology_several_caches, map.instances > 1);
        atomic_store_explicit(&loaded, true, memory_order_release);
    }
    spin_unlock(&load_lock);
}

unsigned cfa_test_topology_from_sysfs(const char *root, unsigned *cache_of, int n)
{
    sysfs_root_for_test = root;
    topology_load();
    for (int cpu = 0; cpu < n; cpu++)
        cache_of[cpu] = topology_cache_of(cpu);
    return atomic_load(&loaded) && map.cache_of_cpu ? map.instances : 0;
}

unsigned topology_cache_of(int cpu)
{
    return cpu >= 0 && cpu < map.ncpus ? map.cache_of_cpu[cpu] : 0;
}

int topology_cpu_of(unsigned position)
{
    if (map.simulated_pus)
        return map.simulated_pus[position % (unsigned)map.nsimulated];
    return sched_getcpu();
}
