// 100,000 threads created and joined one after the other, on 1 and on 2
// processors. Each thread adds its index to a sum and checks it runs as
// itself; the sum, the count and the per-thread state must be exact.
// With `heap`, each thread object is malloc'ed and freed right after
// cfa_thread_destroy (what `delete` does): the runtime must not touch a
// descriptor once join has returned (ASan sees a use after free).
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress 1 | FileCheck %s
// RUN: %timeout %t %stress 2 | FileCheck %s
// RUN: %timeout %t %stress 2 heap | FileCheck %s
// CHECK: threads 100000 processors {{[12]}} sum 4999950000 ok
#include "check.h"

enum { N = 100000 };

struct worker {
    long              index;
    int               ran;
    struct cfa_thread thread;   /* last member */
};

static _Atomic long sum, ran;

static void worker_main(void *object) {
    struct worker *w = object;
    CHECK(cfa_active_thread() == &w->thread, "thread %ld runs as another thread", w->index);
    CHECK(w->thread.state == CFA_THREAD_RUNNING, "state %d", w->thread.state);
    w->ran++;
    atomic_fetch_add(&sum, w->index);
    atomic_fetch_add(&ran, 1);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    int nprocs = (int)arg_long(argc, argv, 2, 1);
    int heap = argc > 3 && strcmp(argv[3], "heap") == 0;
    struct extra_procs procs;
    procs_start(&procs, nprocs);
    CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), nprocs);

    for (long r = 0; r < reps; r++) {
        atomic_store(&sum, 0);
        atomic_store(&ran, 0);
        for (long i = 0; i < N; i++) {
            struct worker local = { .index = i }, *w = &local;
            if (heap) {
                w = calloc(1, sizeof *w);
                CHECK(w != NULL);
                w->index = i;
            }
            cfa_thread_start(&w->thread, worker_main, w, "Worker", 0);
            cfa_thread_join(&w->thread);
            CHECK(w->ran == 1, "thread %ld ran %d times", i, w->ran);
            CHECK(w->thread.state == CFA_THREAD_HALTED, "thread %ld state %d after join", i, w->thread.state);
            cfa_thread_destroy(&w->thread);
            if (heap) free(w);
        }
        CHECK_EQ(atomic_load(&ran), N);
        CHECK_EQ(atomic_load(&sum), (long)N * (N - 1) / 2);
    }
    procs_stop(&procs);
    CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), 1);
    printf("threads %d processors %d sum %ld ok\n", N, nprocs, atomic_load(&sum));
    return 0;
}
