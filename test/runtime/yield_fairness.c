// Yield fairness.
//  1. One processor, FIFO ready queue, no preemption: K threads that
//     yield in a loop run in strict round-robin order (the trace repeats
//     with period K while all K run).
//  2. Two processors, every processor always has local work: a token
//     passed round K yielding threads (each spins on yield until the token
//     is its own) must make progress: a starved ready thread hangs it.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress | FileCheck %s
// RUN: %timeout %t %stress | FileCheck %s --check-prefix=TOKEN
// CHECK: round-robin: 8 threads x 1000 yields in strict order
// CHECK: token: 8 threads x 1000 rounds on 2 processors ok
// TOKEN: token: 8 threads x 1000 rounds on 2 processors ok
#include "check.h"

enum { K = 8, M = 1000, ROUNDS = 1000 };

struct yielder {
    int               id;
    long              steps;
    struct cfa_thread thread;
};

static int trace[K * M];
static _Atomic int trace_len;
static _Atomic int started;

static void rr_main(void *object) {
    struct yielder *y = object;
    atomic_fetch_add(&started, 1);
    while (atomic_load(&started) < K) cfa_yield();
    for (int i = 0; i < M; i++) {
        trace[atomic_fetch_add(&trace_len, 1)] = y->id;
        y->steps++;
        cfa_yield();
    }
}

static _Atomic int token;
static _Atomic long passes;
static void token_main(void *object) {
    struct yielder *y = object;
    for (int r = 0; r < ROUNDS; r++) {
        while (atomic_load(&token) != y->id) cfa_yield();
        y->steps++;
        atomic_fetch_add(&passes, 1);
        atomic_store(&token, (y->id + 1) % K);
    }
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    const char *pre = getenv("CFA_PREEMPTION_MS");
    int strict = pre && strcmp(pre, "0") == 0;
    for (long r = 0; r < reps; r++) {
        struct yielder ys[K];
        if (strict) {
            CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), 1);
            memset(ys, 0, sizeof ys);
            atomic_store(&trace_len, 0);
            atomic_store(&started, 0);
            for (int i = 0; i < K; i++) {
                ys[i].id = i;
                cfa_thread_start(&ys[i].thread, rr_main, &ys[i], "Yielder", 0);
            }
            for (int i = 0; i < K; i++) cfa_thread_join(&ys[i].thread);
            for (int i = 0; i < K; i++) {
                CHECK_EQ(ys[i].steps, M);
                cfa_thread_destroy(&ys[i].thread);
            }
            CHECK_EQ(atomic_load(&trace_len), K * M);
            /* The first K entries are K different threads ... */
            int seen[K] = {0};
            for (int i = 0; i < K; i++) {
                CHECK(!seen[trace[i]], "thread %d twice in the first round", trace[i]);
                seen[trace[i]] = 1;
            }
            /* ... and the order repeats while all K are running (the first
             * thread to finish leaves after its M-th step). */
            for (int i = K; i < K * (M - 1); i++)
                CHECK(trace[i] == trace[i - K], "step %d: thread %d, round-robin wants %d",
                      i, trace[i], trace[i - K]);
            if (r == 0) printf("round-robin: %d threads x %d yields in strict order\n", K, M);
        }

        struct extra_procs procs;
        procs_start(&procs, 2);
        memset(ys, 0, sizeof ys);
        atomic_store(&token, 0);
        atomic_store(&passes, 0);
        for (int i = 0; i < K; i++) {
            ys[i].id = i;
            cfa_thread_start(&ys[i].thread, token_main, &ys[i], "Token", 0);
        }
        for (int i = 0; i < K; i++) cfa_thread_join(&ys[i].thread);
        for (int i = 0; i < K; i++) {
            CHECK_EQ(ys[i].steps, ROUNDS);
            cfa_thread_destroy(&ys[i].thread);
        }
        CHECK_EQ(atomic_load(&passes), (long)K * ROUNDS);
        procs_stop(&procs);
        if (r == 0) printf("token: %d threads x %d rounds on 2 processors ok\n", K, ROUNDS);
    }
    return 0;
}
