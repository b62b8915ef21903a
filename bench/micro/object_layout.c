/* object_layout: what the placement of thread objects in memory costs
 * threads that run on different processors (docs/performance.md,
 * "yield"), with the scheduler out of the picture: two clusters of one
 * processor each, which share nothing in the scheduler, each with 100
 * threads that only yield. A thread's object is a yield counter followed
 * by its descriptor, as the language lays out a `thread` type; the
 * objects are placed by hand:
 *
 *   build/bench/object_layout separate|interleaved [stride] [ms]
 *
 * separate: each cluster's objects side by side, the two groups 1 MiB
 * apart; interleaved: the two clusters' objects in turn, as a program
 * allocating its threads one after the other and spreading them over
 * the processors gets them. Objects are `stride` bytes apart (default:
 * the object's size, rounded up to 64) and 64-byte aligned, so no cache
 * line holds two threads' data. Prints yields per second, in millions. */
#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CLUSTERS = 2, PER_CLUSTER = 100, GROUP_GAP = 1 << 20 };

struct yielder {
    _Atomic long count;
    struct cfa_thread thread;
};

static _Atomic int stop;

static void yield_loop(void *arg) {
    struct yielder *y = arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        cfa_yield();
        atomic_store_explicit(&y->count, y->count + 1, memory_order_relaxed);
    }
}

static struct yielder *place(char *region, int separate, size_t stride, int cluster, int j) {
    size_t offset = separate ? (size_t)cluster * GROUP_GAP + (size_t)j * stride
                             : ((size_t)j * CLUSTERS + (size_t)cluster) * stride;
    return (struct yielder *)(region + offset);
}

int main(int argc, char **argv) {
    if (argc < 2 || (strcmp(argv[1], "separate") && strcmp(argv[1], "interleaved"))) {
        fprintf(stderr, "usage: %s separate|interleaved [stride] [ms]\n", argv[0]);
        return 2;
    }
    int separate = !strcmp(argv[1], "separate");
    size_t stride = argc > 2 ? strtoul(argv[2], NULL, 10) : (sizeof(struct yielder) + 63) / 64 * 64;
    long ms = argc > 3 ? atol(argv[3]) : 1000;
    if (stride < sizeof(struct yielder) || stride % 64 || stride * PER_CLUSTER > GROUP_GAP || ms <= 0) {
        fprintf(stderr, "%s: the stride must be a multiple of 64 from %zu to %d, the time positive\n", argv[0],
                (sizeof(struct yielder) + 63) / 64 * 64, GROUP_GAP / PER_CLUSTER);
        return 2;
    }
    char *region = aligned_alloc(4096, (size_t)CLUSTERS * GROUP_GAP);
    if (!region) {
        perror("aligned_alloc");
        return 1;
    }
    memset(region, 0, (size_t)CLUSTERS * GROUP_GAP);

    struct cfa_cluster other = { .name = "other" };
    cfa_cluster_init(&other);
    struct cfa_processor serving = { .cluster = &other };
    cfa_processor_start(&serving);
    struct cfa_cluster *clusters[CLUSTERS] = { cfa_default_cluster(), &other };
    /* Started in the order a program allocating them one by one would. */
    for (int j = 0; j < PER_CLUSTER; j++)
        for (int c = 0; c < CLUSTERS; c++) {
            cfa_migrate(clusters[c]);
            struct yielder *y = place(region, separate, stride, c, j);
            cfa_thread_start(&y->thread, yield_loop, y, "Yielder", 0);
        }
    cfa_migrate(clusters[0]);

    int64_t t0 = cfa_clock_ns();
    cfa_sleep_ns(ms * 1000000);
    long yields = 0;
    for (int c = 0; c < CLUSTERS; c++)
        for (int j = 0; j < PER_CLUSTER; j++)
            yields += atomic_load_explicit(&place(region, separate, stride, c, j)->count, memory_order_relaxed);
    double seconds = (cfa_clock_ns() - t0) / 1e9;

    atomic_store(&stop, 1);
    for (int c = 0; c < CLUSTERS; c++)
        for (int j = 0; j < PER_CLUSTER; j++)
            cfa_thread_join(&place(region, separate, stride, c, j)->thread);
    cfa_processor_stop(&serving);
    cfa_cluster_destroy(&other);
    printf("%s, objects %zu bytes apart, %d threads on each of %d processors: %.1f Myields/s\n", argv[1], stride,
           PER_CLUSTER, CLUSTERS, yields / seconds / 1e6);
    free(region);
    return 0;
}
