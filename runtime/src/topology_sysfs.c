/* topology_sysfs.c: the cache map from Linux's /sys (topology.c,
 * topology.h), for programs linked without hwloc.
 *
 * The CPUs are <root>/sys/devices/system/cpu/online; a CPU's caches are
 * cpu<N>/cache/index<K>/ with `level`, `type` and `shared_cpu_list`. Its
 * last-level cache is the highest level that holds data (Data or
 * Unified); two CPUs are in the same instance when that cache's
 * shared_cpu_list starts at the same CPU. Instances are numbered in the
 * order of their first CPU; the CPUs without cache information share
 * one.
 */
#include "topology.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_CPUS = 8192 };

/* The first line of <root>/sys/devices/system/cpu/<path>, or false. */
static bool read_cpu_file(const char *root, const char *path, char *line, size_t size)
{
    char name[512];
    snprintf(name, sizeof name, "%s/sys/devices/system/cpu/%s", root, path);
    FILE *f = fopen(name, "re");
    if (!f)
        return false;
    bool ok = fgets(line, (int)size, f) != NULL;
    fclose(f);
    if (ok)
        line[strcspn(line, "\n")] = '\0';
    return ok;
}

/* A CPU list ("0-3,8,10-11") into cpus[], in order; returns how many
 * (capped at MAX_CPUS), or -1 if malformed. */
static int parse_cpu_list(const char *text, int *cpus)
{
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p || first < 0 || first >= MAX_CPUS)
            return -1;
        p = end;
        if (*p == '-') {
            last = strtol(p + 1, &end, 10);
            if (end == p + 1 || last < first || last >= MAX_CPUS)
                return -1;
            p = end;
        }
        for (long c = first; c <= last && n < MAX_CPUS; c++)
            cpus[n++] = (int)c;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return n;
}

/* The first CPU sharing `cpu`'s last-level cache, or -1 if unknown. */
static int last_level_leader(const char *root, int cpu, int *scratch)
{
    int best_level = 0, leader = -1;
    for (int k = 0;; k++) {
        char path[128], line[4096];
        snprintf(path, sizeof path, "cpu%d/cache/index%d/level", cpu, k);
        if (!read_cpu_file(root, path, line, sizeof line))
            break;
        int level = atoi(line);
        snprintf(path, sizeof path, "cpu%d/cache/index%d/type", cpu, k);
        if (!read_cpu_file(root, path, line, sizeof line) || strcmp(line, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "cpu%d/cache/index%d/shared_cpu_list", cpu, k);
        if (level > best_level && read_cpu_file(root, path, line, sizeof line) &&
            parse_cpu_list(line, scratch) > 0) {
            best_level = level;
            leader = scratch[0];
        }
    }
    return leader;
}

bool topology_read_sysfs(struct topology_map *m, const char *root)
{
    char line[4096];
    int *online = malloc(2 * MAX_CPUS * sizeof *online), *scratch = online + MAX_CPUS;
    if (!online)
        return false;
    int n = read_cpu_file(root, "online", line, sizeof line) ? parse_cpu_list(line, online) : -1;
    if (n <= 0) {
        free(online);
        return false;
    }
    int max_cpu = 0;
    for (int i = 0; i < n; i++)
        if (online[i] > max_cpu)
            max_cpu = online[i];
    unsigned *map = calloc((size_t)max_cpu + 1, sizeof *map);
    int *leaders = calloc((size_t)n, sizeof *leaders); /* instance i's first CPU */
    if (!map || !leaders) {
        free(map);
        free(leaders);
        free(online);
        return false;
    }
    unsigned instances = 0;
    for (int i = 0; i < n; i++) {
        int leader = last_level_leader(root, online[i], scratch);
        unsigned inst = 0;
        while (inst < instances && leaders[inst] != leader)
            inst++;
        if (inst == instances)
            leaders[instances++] = leader;
        map[online[i]] = inst;
    }
    free(leaders);
    m->cache_of_cpu = map;
    m->ncpus = max_cpu + 1;
    m->instances = instances;
    if (root[0]) { /* another machine's: simulated, as hwloc's are */
        m->simulated_pus = malloc((size_t)n * sizeof *m->simulated_pus);
        if (m->simulated_pus) {
            memcpy(m->simulated_pus, online, (size_t)n * sizeof *online);
            m->nsimulated = n;
        }
    }
    free(online);
    return true;
}
