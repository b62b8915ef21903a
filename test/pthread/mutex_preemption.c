// Three user threads share one pthread_mutex_t (lock, a short loop,
// unlock) with a time slice of 1 ms, on one processor and on two. A thread
// preempted while it holds the mutex must not stop its processor: the
// next thread that wants the mutex parks, and the holder runs again. Each
// run checks that every increment is counted and that the critical
// section never has two threads inside; the program makes 10 x %stress
// runs per processor count (1,000 with -Dstress=100).
// Also the kinds' static initialisers: the recursive mutex (taken twice
// per entry) and the error-checking one never admit two threads.
// (Sanitizer builds run without preemption: the runs still check.)
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress 1 | FileCheck %s
// RUN: env CFA_PREEMPTION_MS=1 %timeout %t %stress 2 | FileCheck %s
// CHECK: runs {{[0-9]+}} complete, overlaps 0, counts ok
#include "check.h"
#include <pthread.h>

enum { THREADS = 3, ENTRIES = 2000, SPIN = 1000 };

static pthread_mutex_t normal = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t recursive = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static pthread_mutex_t errorcheck = PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP;
static pthread_mutex_t *const mutexes[] = { &normal, &recursive, &errorcheck };
static long counts[3];
static int inside[3];
static long overlaps;

struct worker { struct cfa_thread thread; };

static void critical(int which) {
    if (++inside[which] != 1)
        overlaps++;
    for (volatile int s = 0; s < SPIN; s++)
        ;
    counts[which]++;
    inside[which]--;
}

static void worker_main(void *object) {
    (void)object;
    for (int i = 0; i < ENTRIES; i++) {
        int which = i % 3;
        pthread_mutex_t *m = mutexes[which];
        CHECK_EQ(pthread_mutex_lock(m), 0);
        if (m == &recursive) {
            CHECK_EQ(pthread_mutex_lock(m), 0);
            critical(which);
            CHECK_EQ(pthread_mutex_unlock(m), 0);
        } else {
            critical(which);
        }
        CHECK_EQ(pthread_mutex_unlock(m), 0);
    }
}

int main(int argc, char **argv) {
    long runs = 10 * arg_long(argc, argv, 1, 1);
    long processors = arg_long(argc, argv, 2, 1);
    struct cfa_processor extra = {0};
    if (processors == 2)
        cfa_processor_start(&extra);
    for (long r = 0; r < runs; r++) {
        struct worker w[THREADS];
        memset(w, 0, sizeof w);
        for (int i = 0; i < THREADS; i++)
            cfa_thread_start(&w[i].thread, worker_main, &w[i], "worker", 0);
        for (int i = 0; i < THREADS; i++)
            cfa_thread_destroy(&w[i].thread);
        for (int k = 0; k < 3; k++)
            CHECK_EQ(counts[k], (r + 1) * THREADS * (ENTRIES / 3 + (k < ENTRIES % 3)));
    }
    CHECK_EQ(overlaps, 0);
    if (processors == 2)
        cfa_processor_stop(&extra);
    printf("runs %ld complete, overlaps %ld, counts ok\n", runs, overlaps);
    return 0;
}
