/* big_cluster.h: helpers of the topology suite (test/topology): a cluster
 * of up to 192 processors on the machine's few CPUs, under the synthetic
 * topology the RUN lines give hwloc (HWLOC_SYNTHETIC; runtime/src/
 * topology.h: processor position i simulates the i-th PU).
 *
 * The suite's topology is SYNTHETIC_256: 2 packages x 2 NUMA nodes x 4 L3
 * x 8 cores x 2 PUs = 256 PUs, 16 L3 instances of 16 PUs each, so
 * processor position i is in L3 instance i / 16. Under TSan (a kernel
 * thread costs it far more) the tests run fewer processors: BIG_PROCS.
 */
#ifndef CFA_TEST_BIG_CLUSTER_H
#define CFA_TEST_BIG_CLUSTER_H

#include "sched_test.h"

enum { PUS_PER_L3 = 16 };

#if defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define BIG_UNDER_TSAN 1
#  endif
#endif
#ifdef BIG_UNDER_TSAN
enum { BIG_PROCS = 48 };
#else
enum { BIG_PROCS = 192 };
#endif

/* Processors beyond the main one, started and stopped in order. */
struct big_procs {
    int                   count;
    struct cfa_processor *p;
};

static inline void big_start(struct big_procs *b, int total) {
    b->p = zalloc_aligned((size_t)total, sizeof *b->p);
    b->count = 0;
    for (int i = 1; i < total; i++)
        cfa_processor_start(&b->p[b->count++]);
    CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), total);
}

static inline void big_stop(struct big_procs *b) {
    while (b->count > 0)
        cfa_processor_stop(&b->p[--b->count]);
    free(b->p);
    b->p = NULL;
}

/* L3 instances that `procs` processors at positions 0..procs-1 occupy, and
 * the fewest and most lanes (2 per processor) one holds. */
static inline void big_expected_spread(int procs, long *instances, long *min_lanes, long *max_lanes) {
    *instances = (procs + PUS_PER_L3 - 1) / PUS_PER_L3;
    *max_lanes = 2L * (procs < PUS_PER_L3 ? procs : PUS_PER_L3);
    *min_lanes = procs % PUS_PER_L3 ? 2L * (procs % PUS_PER_L3) : *max_lanes;
}

#endif
