// A parallel_for leaf splits what is left of it when its thread's deque is
// empty (runtime/src/forkjoin_loops.c; docs/forkjoin.md, "Loops"), so the
// end of a loop does not wait for one whole leaf while another processor
// has nothing to do. On two processors, a loop of 64 indices with grain 1
// has leaves of 4 indices, called piece by piece (each index takes longer
// than the shortest piece worth a check, PIECE_MIN_TSC). The caller keeps the
// leaf [0, 4); its index 0 waits until every index outside that leaf has
// run (the other processor took all of them), so the caller's deque is
// then empty; its index 1 waits until index 2 or 3 has run on another
// thread, which only a split of [1, 4) lets happen (one call of the
// body on [0, 4) would wait for itself: 20 s, then it fails).
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t | FileCheck %s
// CHECK: the leaf's upper half ran on another thread while its lower half waited; every index once
#include "check.h"

#include <cfa/forkjoin.h>
#include <cfa/thread.h>
#include <stdatomic.h>

enum { N = 64, LEAF = 4, DEADLINE_S = 20 };
#define INDEX_TSC (1ull << 16) /* > PIECE_MIN_TSC (runtime/src/forkjoin_loops.c) */

static _Atomic int                 runs[N];
static _Atomic int                 outside_done;
static struct cfa_thread *_Atomic  ran_on[N];

static void wait_for(_Atomic int *flag, int value, const char *what) {
    double deadline = now_seconds() + DEADLINE_S;
    while (atomic_load(flag) < value) {
        CHECK(now_seconds() < deadline, "%s in %d s", what, DEADLINE_S);
        __builtin_ia32_pause();
    }
}

static _Atomic int upper_ran_elsewhere;

static void body(int64_t first, int64_t last, void *arg) {
    (void)arg;
    struct cfa_thread *self = cfa_active_thread();
    for (int64_t i = first; i < last; i++) {
        for (uint64_t start = __builtin_ia32_rdtsc(); __builtin_ia32_rdtsc() - start < INDEX_TSC;)
            __builtin_ia32_pause();
        atomic_store(&ran_on[i], self);
        if (i == 0) {
            wait_for(&outside_done, N - LEAF, "the other processor did not run the other leaves");
        } else if (i == 1) {
            wait_for(&upper_ran_elsewhere, 1,
                     "the leaf [0, 4) was not split: its upper half did not run on another thread");
        } else if (i >= LEAF) {
            atomic_fetch_add(&outside_done, 1);
        } else if (atomic_load(&ran_on[0]) != self) {
            atomic_store(&upper_ran_elsewhere, 1);
        }
        atomic_fetch_add(&runs[i], 1);
    }
}

int main(void) {
    struct extra_procs extra;
    procs_start(&extra, 2);
    cfa_parallel_for(0, N, 1, body, NULL);
    for (int i = 0; i < N; i++)
        CHECK_EQ(atomic_load(&runs[i]), 1);
    procs_stop(&extra);
    printf("the leaf's upper half ran on another thread while its lower half waited; every index once\n");
    return 0;
}
