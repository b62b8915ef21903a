// OS turns (runtime/src/processor.c): a processor that has run for a turn
// (OS_TURN_TSC, about 0.4 ms) without blocking calls sched_yield at its
// next scheduling decision, so a kernel thread waiting for its CPU (a
// client of this program, another program) runs first instead of after a
// whole Linux slice; the next turn starts when the yield returns (longer
// after a yield that kept it off the CPU for long: the back-off). Four
// threads keep two processors busy for 300 ms, each spinning a little
// between cfa_yield calls, alone and beside CPU hogs (two kernel threads per
// CPU spinning). Checked from CFA_STATS, whatever the machine's load:
//   the processors yielded to the OS at least once (300 ms of work spans
//   many turns, and the TSC runs while the OS keeps a processor off its
//   CPU);
//   at most once per turn each: no more yields than 2 processors x (the
//   run's TSC cycles / OS_TURN_TSC + 2), so never one per decision.
// How often they yield on a given machine, and how far the back-off
// brings that down among hogs, are statistics: bench/micro/os_turns.c.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 %timeout %t 1 alone > %t.out 2> %t.err
// RUN: %timeout %t 1 verify alone %t.out %t.err | FileCheck %s
// RUN: env CFA_STATS=1 %timeout %t 1 hogs > %t.hogs.out 2> %t.hogs.err
// RUN: %timeout %t 1 verify hogs %t.hogs.out %t.hogs.err | FileCheck %s --check-prefix=HOGS
// CHECK: alone, busy 300 ms on 2 processors: yielded to the OS, at most once per turn
// HOGS: with CPU hogs, busy 300 ms on 2 processors: yielded to the OS, at most once per turn
#include "sched_test.h"
#include "stats_read.h"
#include <pthread.h>
#include <time.h>
#include <unistd.h>

enum { SPINNERS = 4, BUSY_MS = 300, PROCESSORS = 2 };
/* runtime/src/processor.c's OS_TURN_TSC: the shortest turn. */
#define OS_TURN_TSC (1ull << 20)

static _Atomic long decisions;
static struct timespec until;

static bool before_until(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec < until.tv_sec || (now.tv_sec == until.tv_sec && now.tv_nsec < until.tv_nsec);
}

static void spinner(void *arg) {
    (void)arg;
    volatile unsigned sink = 0;
    long mine = 0;
    while (before_until()) {
        for (unsigned i = 0; i < 500; i++) sink += i;
        cfa_yield();
        mine++;
    }
    atomic_fetch_add(&decisions, mine);
}

static _Atomic bool hogs_stop;

static void *hog(void *arg) {
    (void)arg;
    while (!atomic_load_explicit(&hogs_stop, memory_order_relaxed))
        ;
    return NULL;
}

static void run(bool with_hogs) {
    enum { MAX_HOGS = 64 };
    pthread_t hogs[MAX_HOGS];
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), nhogs = 0;
    if (with_hogs)
        for (; nhogs < 2 * cpus && nhogs < MAX_HOGS; nhogs++)
            CHECK_EQ(cfa_kernel_thread_create(&hogs[nhogs], NULL, hog, NULL), 0);
    uint64_t tsc0 = __builtin_ia32_rdtsc();
    struct extra_procs extra;
    procs_start(&extra, PROCESSORS);
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += BUSY_MS * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    static struct cfa_thread th[SPINNERS];
    for (int i = 0; i < SPINNERS; i++) cfa_thread_start(&th[i], spinner, NULL, "Spinner", 0);
    for (int i = 0; i < SPINNERS; i++) cfa_thread_join(&th[i]);
    procs_stop(&extra);
    atomic_store(&hogs_stop, true);
    for (long i = 0; i < nhogs; i++) CHECK_EQ(cfa_kernel_thread_join(hogs[i], NULL), 0);
    printf("decisions %ld\n", atomic_load(&decisions));
    /* Up to here: after the stop, the main processor makes no decision. */
    printf("turns %llu\n", (unsigned long long)((__builtin_ia32_rdtsc() - tsc0) / OS_TURN_TSC));
}

static void verify(bool with_hogs, const char *out_path, const char *err_path) {
    char *out = stats_slurp(out_path), *err = stats_slurp(err_path);
    long turns = stats_find(out, "turns "), yields = stats_find(err, "os yields ");
    CHECK(yields >= 1, "no yield to the OS in %d ms of work (%ld turns)", BUSY_MS, turns);
    CHECK(yields <= PROCESSORS * (turns + 2), "%ld yields to the OS in %ld turns of %d processors", yields,
          turns, PROCESSORS);
    printf("%s, busy %d ms on %d processors: yielded to the OS, at most once per turn\n",
           with_hogs ? "with CPU hogs" : "alone", BUSY_MS, PROCESSORS);
}

int main(int argc, char **argv) {
    CHECK(argc > 2, "usage: os_turns 1 alone|hogs | os_turns 1 verify alone|hogs OUT ERR");
    if (!strcmp(argv[2], "alone")) run(false);
    else if (!strcmp(argv[2], "hogs")) run(true);
    else if (!strcmp(argv[2], "verify") && argc > 5) verify(!strcmp(argv[3], "hogs"), argv[4], argv[5]);
    else CHECK(0, "unknown mode %s", argv[2]);
    return 0;
}
