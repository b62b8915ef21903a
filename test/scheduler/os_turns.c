// OS turns (runtime/src/processor.c): a processor that has run for about
// 0.4 ms without blocking calls sched_yield at its next scheduling
// decision, so a kernel thread waiting for its CPU (a client of this
// program, another program) runs first instead of after a whole Linux
// slice. Four threads keep two processors busy for 300 ms, each spinning
// a little between cfa_yield calls. Checked from CFA_STATS: the
// processors yielded to the OS at least 50 times (at 0.4 ms per turn,
// about 1,500 are expected; without OS turns, none), and at fewer than
// one decision in 20 (a turn holds hundreds of decisions: a processor
// that yielded at each would pay a system call per thread switch).
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 %timeout %t 1 run > %t.out 2> %t.err
// RUN: %timeout %t 1 verify %t.out %t.err | FileCheck %s
// CHECK: busy 300 ms on 2 processors: yielded to the OS, not at every decision
#include "sched_test.h"
#include "stats_read.h"
#include <time.h>

enum { SPINNERS = 4, BUSY_MS = 300 };

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

static void run(void) {
    struct extra_procs extra;
    procs_start(&extra, 2);
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_nsec += BUSY_MS * 1000000L;
    until.tv_sec += until.tv_nsec / 1000000000L;
    until.tv_nsec %= 1000000000L;
    static struct cfa_thread th[SPINNERS];
    for (int i = 0; i < SPINNERS; i++) cfa_thread_start(&th[i], spinner, NULL, "Spinner", 0);
    for (int i = 0; i < SPINNERS; i++) cfa_thread_join(&th[i]);
    procs_stop(&extra);
    printf("decisions %ld\n", atomic_load(&decisions));
}

static void verify(const char *out_path, const char *err_path) {
    char *out = stats_slurp(out_path), *err = stats_slurp(err_path);
    long made = stats_find(out, "decisions "), yields = stats_find(err, "os yields ");
    CHECK(yields >= 50, "%ld yields to the OS in %d ms of work", yields, BUSY_MS);
    CHECK(yields * 20 < made, "%ld yields to the OS for %ld scheduling decisions", yields, made);
    printf("busy %d ms on 2 processors: yielded to the OS, not at every decision\n", BUSY_MS);
}

int main(int argc, char **argv) {
    CHECK(argc > 2, "usage: os_turns 1 run | os_turns 1 verify OUT ERR");
    if (!strcmp(argv[2], "run")) run();
    else if (!strcmp(argv[2], "verify") && argc > 4) verify(argv[3], argv[4]);
    else CHECK(0, "unknown mode %s", argv[2]);
    return 0;
}
