// Two threads start and stop processors of the same cluster at the same
// time, 200 times each, with nothing else running: the smallest program
// with two concurrent writers of the resizing lock (thesis 6.1). Each
// start and stop must take the writer side for everything it reads or
// writes of the cluster's ready queue; the ThreadSanitizer build checks
// that (a read of the queue's reader count outside the lock is a data
// race). The processor count is checked after every step.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: concurrent resizing: 2 threads x 200 start/stop pairs ok
#include "sched_test.h"

enum { RESIZERS = 2, PAIRS = 200 };

struct resizer {
    int               index;
    struct cfa_thread thread;
};

static void resizer_main(void *object) {
    struct resizer *r = object;
    struct cfa_cluster *cl = cfa_current_cluster();
    cfa_park(); /* start gate: both begin together */
    for (int i = 0; i < PAIRS; i++) {
        struct cfa_processor p;
        memset(&p, 0, sizeof p);
        cfa_processor_start(&p);
        unsigned n = cfa_cluster_processor_count(cl);
        CHECK(n >= 2 && n <= 1 + RESIZERS, "%u processors after a start by resizer %d", n, r->index);
        cfa_processor_stop(&p);
        n = cfa_cluster_processor_count(cl);
        CHECK(n >= 1 && n <= RESIZERS, "%u processors after a stop by resizer %d", n, r->index);
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        struct resizer rs[RESIZERS];
        memset(rs, 0, sizeof rs);
        for (int i = 0; i < RESIZERS; i++) {
            rs[i].index = i;
            cfa_thread_start(&rs[i].thread, resizer_main, &rs[i], "Resizer", 0);
        }
        for (int i = 0; i < RESIZERS; i++) cfa_unpark(&rs[i].thread);
        for (int i = 0; i < RESIZERS; i++) cfa_thread_join(&rs[i].thread);
        for (int i = 0; i < RESIZERS; i++) cfa_thread_destroy(&rs[i].thread);
        CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), 1);
        REPORT("concurrent resizing: %d threads x %d start/stop pairs ok\n", RESIZERS, PAIRS);
    }
    return 0;
}
