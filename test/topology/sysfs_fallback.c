// The cache topology read from /sys, as a program linked without hwloc
// (cfacc -static) reads it: here from a tree laid out as /sys, of a
// machine with CPUs 0-5 where 0-1 and 2-3 each share an L3 and 4-5 have
// no cache information. Checks the map (instances in order of their first
// CPU; the CPUs without information share one), then that a cluster of
// six processors on that simulated machine runs its threads to the end.
//
// RUN: %cc %s -o %t %cfa-link
// RUN: rm -rf %t.root && %timeout %t %t.root | FileCheck %s
// CHECK: instances 3: 0 0 1 1 2 2
// CHECK-NEXT: steps 6000
// An unreadable tree is no topology.
// RUN: %timeout %t %t.missing missing | FileCheck %s --check-prefix=MISSING
// MISSING: instances 0
#include <cfa/processor.h>
#include <cfa/runtime.h>
#include <cfa/testing.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void put(const char *root, const char *path, const char *text) {
    char name[512];
    snprintf(name, sizeof name, "%s/sys/devices/system/cpu/%s", root, path);
    for (char *p = strchr(name + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        mkdir(name, 0755);
        *p = '/';
    }
    FILE *f = fopen(name, "w");
    if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
        perror(name);
        exit(1);
    }
}

static void cache(const char *root, int cpu, int index, const char *level, const char *type,
                  const char *shared) {
    char path[128];
    snprintf(path, sizeof path, "cpu%d/cache/index%d/level", cpu, index);
    put(root, path, level);
    snprintf(path, sizeof path, "cpu%d/cache/index%d/type", cpu, index);
    put(root, path, type);
    snprintf(path, sizeof path, "cpu%d/cache/index%d/shared_cpu_list", cpu, index);
    put(root, path, shared);
}

static void make_machine(const char *root) {
    put(root, "online", "0-5");
    for (int cpu = 0; cpu < 4; cpu++) {
        char self[8];
        snprintf(self, sizeof self, "%d", cpu);
        cache(root, cpu, 0, "1", "Data", self);
        cache(root, cpu, 1, "1", "Instruction", self);
        cache(root, cpu, 2, "2", "Unified", self);
        cache(root, cpu, 3, "3", "Unified", cpu < 2 ? "0-1" : "2-3");
    }
    // An instruction cache above every data cache is not the last level.
    cache(root, 0, 4, "4", "Instruction", "0-5");
}

enum { THREADS = 12, STEPS = 500 };
static atomic_int steps;
static void stepper(void *arg) {
    for (int i = 0; i < STEPS; i++) {
        atomic_fetch_add(&steps, 1);
        cfa_yield();
    }
}

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    if (argc == 2)
        make_machine(argv[1]);
    unsigned cache_of[6];
    unsigned instances = cfa_test_topology_from_sysfs(argv[1], cache_of, 6);
    printf("instances %u:", instances);
    if (instances == 0) {
        printf("\n");
        return 0;
    }
    for (int cpu = 0; cpu < 6; cpu++)
        printf(" %u", cache_of[cpu]);
    printf("\n");
    struct cfa_processor *procs[5];
    for (int i = 0; i < 5; i++)
        procs[i] = cfa_processor_new(cfa_default_cluster());
    static struct cfa_thread threads[THREADS];
    for (int i = 0; i < THREADS; i++)
        cfa_thread_start(&threads[i], stepper, NULL, "stepper", 0);
    for (int i = 0; i < THREADS; i++) {
        cfa_thread_join(&threads[i]);
        cfa_thread_destroy(&threads[i]);
    }
    for (int i = 0; i < 5; i++)
        cfa_processor_delete(procs[i]);
    printf("steps %d\n", atomic_load(&steps));
    return 0;
}
