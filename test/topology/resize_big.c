// Resizing from 1 to BIG_PROCS processors (192; 48 under TSan) and back,
// under load, on a synthetic 256-PU topology (thesis 6.1 at scale). A
// resizer thread starts processors one at a time up to BIG_PROCS, then
// stops them in a shuffled order (each stop moves the last processor into
// the leaver's position, so positions, lanes and cache hints are rebuilt
// all over the cluster); meanwhile yielders and park/unpark rings
// keep pushing and popping (a yielder, halfway, keeps yielding until the
// resizer is done, so the load lasts the whole resize).
//
// Invariants, exact: every yielder makes STEPS steps and every ring thread
// STEPS wake-ups, never two at once (a thread lost in a removed lane hangs
// the test: the timeout; one queued twice runs twice: the in-step flag and
// the counts); no permit is left over; the processor count is exactly
// what the resizer made it after every start and stop, and 1 at the end;
// CFA_STATS's lane count is 2 at exit (one processor).
//
// RUN: %cc %s -I%S/include -I%S/../scheduler/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env HWLOC_SYNTHETIC="pack:2 numa:2 l3:4 core:8 pu:2" CFA_STATS=1 %timeout %t 1 2> %t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.err
// CHECK: resize: 1 -> {{192|48}} -> 1 processors ({{382|94}} resizes), 4 yielders x 2000 steps, 2 rings x 4 x 2000 wake-ups exact
// STATS: cfa stats: cluster main: processors 1, lanes 2
#include "big_cluster.h"

/* A light load: each busy processor is a runnable kernel thread, and on two
 * CPUs every resize waits for the kernel to run the processors involved. */
enum { YIELDERS = 4, RINGS = 2, RING = 4, STEPS = 2000, ROUNDS = 1 };

static _Atomic int resizing;

struct resizer {
    int               resizes;
    struct cfa_thread thread;
};

static void resizer_main(void *object) {
    struct resizer *r = object;
    struct cfa_cluster *cl = cfa_current_cluster();
    struct cfa_processor *procs = zalloc_aligned(BIG_PROCS, sizeof *procs);
    int order[BIG_PROCS];
    uint64_t rng = prng_seed(7);
    for (int round = 0; round < ROUNDS; round++) {
        memset(procs, 0, BIG_PROCS * sizeof *procs);
        for (int i = 1; i < BIG_PROCS; i++) {
            cfa_processor_start(&procs[i]);
            r->resizes++;
            CHECK_EQ(cfa_cluster_processor_count(cl), i + 1);
            order[i - 1] = i;
        }
        for (int i = BIG_PROCS - 2; i > 0; i--) { /* Fisher-Yates */
            int j = (int)(prng_next(&rng) % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int i = 0; i < BIG_PROCS - 1; i++) {
            cfa_processor_stop(&procs[order[i]]);
            r->resizes++;
            CHECK_EQ(cfa_cluster_processor_count(cl), BIG_PROCS - 1 - i);
        }
    }
    free(procs);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        struct resizer r = { 0 };
        struct big_load load;
        atomic_store(&resizing, 1);
        big_load_start(&load, YIELDERS, RINGS * RING, RING, STEPS, &resizing);
        cfa_thread_start(&r.thread, resizer_main, &r, "Resizer", 0);
        cfa_thread_join(&r.thread);
        cfa_thread_destroy(&r.thread);
        atomic_store(&resizing, 0);
        CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), 1);
        big_load_finish(&load);
        REPORT("resize: 1 -> %d -> 1 processors (%d resizes), %d yielders x %d steps, %d rings x %d x %d "
               "wake-ups exact\n", BIG_PROCS, r.resizes, YIELDERS, STEPS, RINGS, RING, STEPS);
    }
    return 0;
}
