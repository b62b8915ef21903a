// The Yield benchmark of thesis 7.4 as a correctness test: threads that
// only yield, ITERS times each, at the thesis's two load levels (100
// threads per processor, and 1, where ready queues are often empty and
// processors go idle between yields), on 2 processors, then on 1.
//
// Invariants: every thread performs exactly ITERS steps, the steps add up,
// no thread runs on two processors at once (a yield pushes the thread
// back only after its registers are saved), and a yield never leaves or
// takes a park permit.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: yield many: 200 threads x 2000 yields on 2 processors ok
// CHECK-NEXT: yield few: 2 threads x 200000 yields on 2 processors ok
// CHECK-NEXT: yield many: 100 threads x 2000 yields on 1 processors ok
// CHECK-NEXT: yield few: 1 threads x 200000 yields on 1 processors ok
#include "sched_test.h"

struct yielder {
    int               index;
    long              iters, steps;
    _Atomic int       in_step;
    struct cfa_thread thread;
};

static _Atomic long total_steps;

static void yielder_main(void *object) {
    struct yielder *y = object;
    cfa_park(); /* start gate */
    for (long k = 0; k < y->iters; k++) {
        CHECK(atomic_exchange(&y->in_step, 1) == 0, "thread %d runs twice at once", y->index);
        y->steps++;
        atomic_fetch_add_explicit(&total_steps, 1, memory_order_relaxed);
        atomic_store(&y->in_step, 0);
        cfa_yield();
    }
}

static void run(const char *label, int procs, int per_proc, long iters) {
    struct extra_procs extra;
    procs_start(&extra, procs);
    int n = per_proc * procs;
    struct yielder *ys = zalloc_aligned(n, sizeof *ys);
    atomic_store(&total_steps, 0);
    for (int i = 0; i < n; i++) {
        ys[i].index = i;
        ys[i].iters = iters;
        cfa_thread_start(&ys[i].thread, yielder_main, &ys[i], "Yielder", 0);
    }
    for (int i = 0; i < n; i++) cfa_unpark(&ys[i].thread);
    for (int i = 0; i < n; i++) cfa_thread_join(&ys[i].thread);
    for (int i = 0; i < n; i++) {
        CHECK(ys[i].steps == iters, "thread %d did %ld steps", i, ys[i].steps);
        CHECK_EQ(atomic_load(&ys[i].thread.ticket), 0);
        CHECK_EQ(atomic_load(&ys[i].thread.state), CFA_THREAD_HALTED);
        cfa_thread_destroy(&ys[i].thread);
    }
    CHECK_EQ(atomic_load(&total_steps), (long)n * iters);
    free(ys);
    procs_stop(&extra);
    CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), 1);
    REPORT("yield %s: %d threads x %ld yields on %d processors ok\n", label, n, iters, procs);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        run("many", 2, 100, 2000);
        run("few", 2, 1, 200000);
        run("many", 1, 100, 2000);
        run("few", 1, 1, 200000);
    }
    return 0;
}
