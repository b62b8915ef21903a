/* topology.c: CPU -> last-level cache instance, from hwloc. See topology.h. */
#include "topology.h"
#include "spinlock.h"

#include <hwloc.h>
#include <sched.h>
#include <stdlib.h>

static _Atomic int load_lock;
static _Atomic bool loaded;
_Atomic bool topology_several_caches;
static unsigned *cache_of_cpu;   /* indexed by OS CPU number */
static int ncpus;
static int *simulated_pus;       /* OS numbers of the PUs in logical order; NULL on this machine */
static int nsimulated;

static hwloc_obj_t last_level_cache(hwloc_topology_t topo, hwloc_obj_t pu)
{
    static const hwloc_obj_type_t levels[] = { HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L1CACHE };
    for (unsigned i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        hwloc_obj_t c = hwloc_get_ancestor_obj_by_type(topo, levels[i], pu);
        if (c)
            return c;
    }
    return NULL;
}

void topology_load(void)
{
    if (atomic_load_explicit(&loaded, memory_order_acquire))
        return;
    spin_lock(&load_lock);
    if (!atomic_load_explicit(&loaded, memory_order_relaxed)) {
        hwloc_topology_t topo;
        if (hwloc_topology_init(&topo) == 0 && hwloc_topology_load(topo) == 0) {
            int npu = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
            int max_os = 0;
            for (int i = 0; i < npu; i++) {
                hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
                if ((int)pu->os_index > max_os)
                    max_os = (int)pu->os_index;
            }
            unsigned *map = calloc((size_t)max_os + 1, sizeof *map);
            int *pus = hwloc_topology_is_thissystem(topo) ? NULL : calloc((size_t)npu, sizeof *pus);
            unsigned seen = 1;
            if (pus) {
                for (int i = 0; i < npu; i++)
                    pus[i] = (int)hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i)->os_index;
                simulated_pus = pus;
                nsimulated = npu;
            }
            if (map) {
                for (int i = 0; i < npu; i++) {
                    hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
                    hwloc_obj_t cache = last_level_cache(topo, pu);
                    map[pu->os_index] = cache ? cache->logical_index : 0;
                    if (map[pu->os_index] + 1 > seen)
                        seen = map[pu->os_index] + 1;
                }
                cache_of_cpu = map;
                ncpus = max_os + 1;
                atomic_store(&topology_several_caches, seen > 1);
            }
            hwloc_topology_destroy(topo);
        }
        atomic_store_explicit(&loaded, true, memory_order_release);
    }
    spin_unlock(&load_lock);
}

unsigned topology_cache_of(int cpu)
{
    return cpu >= 0 && cpu < ncpus ? cache_of_cpu[cpu] : 0;
}

int topology_cpu_of(unsigned position)
{
    if (simulated_pus)
        return simulated_pus[position % (unsigned)nsimulated];
    return sched_getcpu();
}
