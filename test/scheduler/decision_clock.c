// The scheduling loop's clock (runtime/src/processor.c, decision_clock):
// a processor whose decisions come less than CLOCK_FAST_TSC apart reads
// the TSC at one decision in CLOCK_SAMPLE (4) and reuses its last reading
// in between; one whose threads run longer reads it at every decision.
// Also the one-lock yield (ready_yield_swap): a yield with other threads
// in its processor's lanes pushes and pops under one lane lock.
// One processor, preemption off, counted from CFA_STATS:
//  1. "fast": 100 threads yield 2,000 times each: the TSC reads are fewer
//     than half the decisions (pops), and at least one in 8; and
//     at least half the yields are swaps (all but the helping steps, I/O
//     polls and the last thread's, which has nobody behind it).
//  2. "slow": 4 threads spin 20 us between yields: a read at nearly every
//     decision (at least 9 in 10).
// Under TSan, whose instrumentation makes every decision slower than the
// clock's threshold, only the swaps are checked.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t 1 fast > %t.out 2> %t.err
// RUN: %timeout %t 1 verify fast %t.err | FileCheck %s --check-prefix=FAST
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t 1 slow > %t.out 2> %t.err
// RUN: %timeout %t 1 verify slow %t.err | FileCheck %s --check-prefix=SLOW
// FAST: fast: most yields swapped
// SLOW: slow: the TSC read at every decision
#include "sched_test.h"
#include "stats_read.h"
#include "task.h"
#include <time.h>

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif
#ifndef UNDER_TSAN
#define UNDER_TSAN 0
#endif

enum { FAST_THREADS = 100, FAST_YIELDS = 2000, SLOW_THREADS = 4, SLOW_YIELDS = 500, SLOW_SPIN_NS = 20000 };

static long yields_each;
static bool spin_between;

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static void yielder(void *arg) {
    (void)arg;
    for (long i = 0; i < yields_each; i++) {
        if (spin_between)
            for (long until = now_ns() + SLOW_SPIN_NS; now_ns() < until;) {}
        cfa_yield();
    }
}

static void run(int threads, long yields, bool spin) {
    yields_each = yields;
    spin_between = spin;
    struct task *tasks = calloc(threads, sizeof *tasks);
    CHECK(tasks != NULL, "out of memory");
    for (int i = 0; i < threads; i++)
        task_start(&tasks[i], yielder, NULL, "Yielder");
    for (int i = 0; i < threads; i++)
        cfa_thread_join(&tasks[i].thread);
    free(tasks);
}

static void verify(const char *mode, const char *err_path) {
    char *err = stats_slurp(err_path);
    long pops = stats_find(err, "pop:  local ") + stats_find(err, "helped ") + stats_find(err, "stolen ") +
                stats_find(err, "idle search ");
    long reads = stats_find(err, "TSC reads "), swaps = stats_find(err, "yield swaps ");
    if (!strcmp(mode, "fast")) {
        long yields = FAST_THREADS * FAST_YIELDS;
        CHECK(pops >= yields, "%ld pops for %ld yields", pops, yields);
        CHECK(swaps * 2 >= yields && swaps <= pops, "%ld yield swaps for %ld yields", swaps, yields);
        CHECK(UNDER_TSAN || (reads * 2 < pops && reads * 8 >= pops), "%ld TSC reads for %ld decisions", reads, pops);
        printf("fast: most yields swapped\n");
        if (!UNDER_TSAN)
            printf("fast: the TSC read at 1 decision in %.1f\n", (double)pops / reads);
    } else {
        CHECK(pops >= SLOW_THREADS * SLOW_YIELDS, "%ld pops for %d yields", pops, SLOW_THREADS * SLOW_YIELDS);
        CHECK(reads * 10 >= pops * 9, "%ld TSC reads for %ld decisions", reads, pops);
        printf("slow: the TSC read at every decision\n");
    }
}

int main(int argc, char **argv) {
    CHECK(argc > 2, "usage: decision_clock 1 fast|slow | decision_clock 1 verify MODE ERR");
    if (!strcmp(argv[2], "fast")) run(FAST_THREADS, FAST_YIELDS, false);
    else if (!strcmp(argv[2], "slow")) run(SLOW_THREADS, SLOW_YIELDS, true);
    else if (!strcmp(argv[2], "verify") && argc > 4) verify(argv[3], argv[4]);
    else CHECK(false, "unknown mode %s", argv[2]);
    return 0;
}
