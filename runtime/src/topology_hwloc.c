/* topology_hwloc.c: the cache map from hwloc (topology.c, topology.h).
 *
 * hwloc's functions are weak references: a program linked without hwloc
 * (cfacc -static) reads /sys instead (topology_sysfs.c).
 */
#include "topology.h"

#include <hwloc.h>
#include <stdlib.h>

#pragma weak hwloc_topology_init
#pragma weak hwloc_topology_load
#pragma weak hwloc_topology_destroy
#pragma weak hwloc_topology_is_thissystem
#pragma weak hwloc_get_type_depth
#pragma weak hwloc_get_nbobjs_by_depth
#pragma weak hwloc_get_obj_by_depth

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

bool topology_read_hwloc(struct topology_map *m)
{
    hwloc_topology_t topo;
    if (!hwloc_topology_init || hwloc_topology_init(&topo) != 0)
        return false;
    if (hwloc_topology_load(topo) != 0) {
        hwloc_topology_destroy(topo);
        return false;
    }
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
        m->simulated_pus = pus;
        m->nsimulated = npu;
    }
    if (map) {
        for (int i = 0; i < npu; i++) {
            hwloc_obj_t pu = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PU, (unsigned)i);
            hwloc_obj_t cache = last_level_cache(topo, pu);
            map[pu->os_index] = cache ? cache->logical_index : 0;
            if (map[pu->os_index] + 1 > seen)
                seen = map[pu->os_index] + 1;
        }
        m->cache_of_cpu = map;
        m->ncpus = max_os + 1;
        m->instances = seen;
    }
    hwloc_topology_destroy(topo);
    return map != NULL;
}
