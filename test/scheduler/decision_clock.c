// The scheduling loop's clock (runtime/src/processor.c, decision_clock):
// a sampling processor reads the TSC at one decision in CLOCK_SAMPLE (16,
// the most it skips) and reuses its last reading in between; otherwise it
// reads at every decision. Which of the two a processor does depends on how fast its
// decisions come, so each mode is forced here (cfa_test_decision_clock)
// and the counts depend on no machine's speed.
// Also the one-lock yield (ready_yield_swap): a yield with other threads
// in its processor's lanes pushes and pops under one lane lock.
// One processor, preemption off, 100 threads yield 2,000 times each,
// counted from CFA_STATS:
//  1. "sampled": the TSC reads are at least a sixteenth of the decisions
//     (pops) and at most a sixteenth plus a few (the first decision, and
//     one after each idle spell, read it); at least half the yields are
//     swaps (all but the helping steps, OS turns and the last thread's,
//     which has nobody behind it).
//  2. "every": at least as many reads as decisions, but for the pops
//     after an idle spell, which read the TSC outside the loop's clock.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t 1 sampled > %t.out 2> %t.err
// RUN: %timeout %t 1 verify sampled %t.err | FileCheck %s --check-prefix=SAMPLED
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t 1 every > %t.out 2> %t.err
// RUN: %timeout %t 1 verify every %t.err | FileCheck %s --check-prefix=EVERY
// SAMPLED: sampled: the TSC read at one decision in 16; most yields swapped
// EVERY: every: the TSC read at every decision
#include "sched_test.h"
#include "stats_read.h"
#include "task.h"

#include <cfa/testing.h>

enum { THREADS = 100, YIELDS = 2000, CLOCK_SAMPLE = 16, SLACK = 8 };

static void yielder(void *arg) {
    (void)arg;
    for (long i = 0; i < YIELDS; i++)
        cfa_yield();
}

static void run(void) {
    static struct task tasks[THREADS];
    for (int i = 0; i < THREADS; i++)
        task_start(&tasks[i], yielder, NULL, "Yielder");
    for (int i = 0; i < THREADS; i++)
        cfa_thread_join(&tasks[i].thread);
}

static void verify(const char *mode, const char *err_path) {
    char *err = stats_slurp(err_path);
    long pops = stats_find(err, "pop:  local ") + stats_find(err, "helped ") + stats_find(err, "stolen ") +
                stats_find(err, "idle search ");
    long reads = stats_find(err, "TSC reads "), swaps = stats_find(err, "yield swaps ");
    long idle = stats_find(err, "idle list registrations "); /* each spell's pop reads the TSC itself */
    long yields = THREADS * YIELDS;
    CHECK(pops >= yields, "%ld pops for %ld yields", pops, yields);
    if (!strcmp(mode, "sampled")) {
        CHECK(reads * CLOCK_SAMPLE + idle * CLOCK_SAMPLE + SLACK >= pops &&
                  reads <= pops / CLOCK_SAMPLE + idle + SLACK,
              "%ld TSC reads for %ld decisions, %ld idle spells", reads, pops, idle);
        CHECK(swaps * 2 >= yields && swaps <= pops, "%ld yield swaps for %ld yields", swaps, yields);
        printf("sampled: the TSC read at one decision in %d; most yields swapped\n", CLOCK_SAMPLE);
    } else {
        CHECK(reads + idle + SLACK >= pops, "%ld TSC reads for %ld decisions, %ld idle spells", reads, pops, idle);
        printf("every: the TSC read at every decision\n");
    }
}

int main(int argc, char **argv) {
    CHECK(argc > 2, "usage: decision_clock 1 sampled|every | decision_clock 1 verify MODE ERR");
    if (!strcmp(argv[2], "sampled") || !strcmp(argv[2], "every")) {
        cfa_test_decision_clock(!strcmp(argv[2], "sampled"));
        run();
    } else if (!strcmp(argv[2], "verify") && argc > 4) {
        verify(argv[3], argv[4]);
    } else {
        CHECK(false, "unknown mode %s", argv[2]);
    }
    return 0;
}
