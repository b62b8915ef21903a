// N threads alive at once (argv[3], default 10,000), on 1 and on 2
// processors: every thread starts, announces itself and parks; main waits
// until all N are parked at the same time, wakes them, and joins them all.
//
// 40,000 is more than one mapping per stack and guard allows (Linux's
// vm.max_map_count, 65,530): stacks come from shared regions (stack.c).
// Each guard policy holds there: `auto` (guard pages that split nothing,
// or the mprotect fallback on older kernels), `protect` with a budget
// small enough to run out (the rest of the stacks get a canary), and
// `canary`; CFA_STATS counts the stacks of each kind (a few more than N:
// the runtime starts a processor from a thread of its own).
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress 1 | FileCheck %s
// RUN: %timeout %t %stress 2 | FileCheck %s
// CHECK: alive 10000 processors {{[12]}} max-alive 10000 sum 49995000 ok
// RUN: env CFA_STATS=1 %timeout %t 1 2 40000 2> %t.err | FileCheck %s --check-prefix=MANY
// RUN: FileCheck %s --check-prefix=AUTO < %t.err
// MANY: alive 40000 processors 2 max-alive 40000 sum 799980000 ok
// AUTO: stacks: slots carved {{4000[0-9]}}; guard pages by madvise {{[0-9]+}}, by mprotect {{[0-9]+}}; canary {{[0-9]+}};
// RUN: env CFA_STATS=1 CFA_STACK_GUARD=protect CFA_STACK_GUARD_MAPS=1000 %timeout %t 1 1 40000 2> %t.err \
// RUN:   | FileCheck %s --check-prefix=MANY1
// RUN: FileCheck %s --check-prefix=PROTECT < %t.err
// MANY1: alive 40000 processors 1 max-alive 40000 sum 799980000 ok
// PROTECT: stacks: slots carved {{4000[0-9]}}; guard pages by madvise 0, by mprotect {{[1-9][0-9]*}}; canary {{[1-9][0-9]*}};{{.*}}mappings {{[0-9]+}} of 1000
// RUN: env CFA_STATS=1 CFA_STACK_GUARD=canary %timeout %t 1 2 40000 2> %t.err | FileCheck %s --check-prefix=MANY
// RUN: FileCheck %s --check-prefix=CANARY < %t.err
// CANARY: stacks: slots carved {{4000[0-9]}}; guard pages by madvise 0, by mprotect 0; canary {{4000[0-9]}};
#include "check.h"

struct worker {
    long              index;
    long              result;
    struct cfa_thread thread;
};

static _Atomic long started, finished, sum;
static _Atomic int released;

static void worker_main(void *object) {
    struct worker *w = object;
    atomic_fetch_add(&started, 1);
    cfa_park();                       /* main unparks each exactly once */
    CHECK(atomic_load(&released), "thread %ld woke before main released it", w->index);
    w->result = w->index;
    atomic_fetch_add(&sum, w->index);
    atomic_fetch_add(&finished, 1);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    int nprocs = (int)arg_long(argc, argv, 2, 1);
    long N = arg_long(argc, argv, 3, 10000);
    struct worker *ws = calloc(N, sizeof *ws);
    CHECK(ws != NULL);
    struct extra_procs procs;
    procs_start(&procs, nprocs);
    long max_alive = 0;

    for (long r = 0; r < reps; r++) {
        atomic_store(&started, 0);
        atomic_store(&finished, 0); atomic_store(&sum, 0);
        atomic_store(&released, 0);
        memset(ws, 0, N * sizeof *ws);
        for (long i = 0; i < N; i++) {
            ws[i].index = i;
            cfa_thread_start(&ws[i].thread, worker_main, &ws[i], "Worker", 0);
        }
        /* Wait until every thread is parked (state BLOCKED): then all N are
         * alive together. Bounded by the test's timeout. */
        long blocked;
        for (;;) {
            blocked = 0;
            for (long i = 0; i < N; i++)
                blocked += atomic_load(&ws[i].thread.state) == CFA_THREAD_BLOCKED;
            if (blocked == N) break;
            cfa_yield();
        }
        CHECK_EQ(atomic_load(&started), N);
        CHECK_EQ(atomic_load(&finished), 0);
        long alive = 0;
        for (long i = 0; i < N; i++) alive += ws[i].thread.state != CFA_THREAD_HALTED;
        if (alive > max_alive) max_alive = alive;
        atomic_store(&released, 1);
        for (long i = 0; i < N; i++) cfa_unpark(&ws[i].thread);
        for (long i = N - 1; i >= 0; i--) cfa_thread_join(&ws[i].thread);
        for (long i = 0; i < N; i++) {
            CHECK(ws[i].result == i, "thread %ld result %ld", i, ws[i].result);
            CHECK_EQ(ws[i].thread.state, CFA_THREAD_HALTED);
            cfa_thread_destroy(&ws[i].thread);
        }
        CHECK_EQ(atomic_load(&finished), N);
        CHECK_EQ(atomic_load(&sum), (long)N * (N - 1) / 2);
    }
    procs_stop(&procs);
    free(ws);
    printf("alive %ld processors %d max-alive %ld sum %ld ok\n", N, nprocs, max_alive, atomic_load(&sum));
    return 0;
}
