// Idle sleep costs nothing (thesis 6.2-6.4): with 4 processors and every
// thread blocked (the main thread in cfa_sleep_ns for one second, after a
// burst of work that kept all 4 busy), the processors sleep on their
// eventfds and the timer wakes one of them at the deadline, so the process
// uses under 2% of one CPU over the second (getrusage RUSAGE_SELF, user +
// system time of every kernel thread). A processor that spins, or polls,
// while idle shows up as tens of percent. This bound is a functional
// property, not a performance target: it holds on any machine.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: idle: 4 processors, 1 s of cfa_sleep_ns after a burst: CPU under 2% ok
// CHECK-NEXT: idle: 4 processors, 1 s of cfa_sleep_ns from the start: CPU under 2% ok
#include "sched_test.h"
#include <sys/resource.h>

enum { PROCS = 4, BURST_THREADS = 16, BURST_YIELDS = 20000 };
static const double LIMIT = 0.02;

static double cpu_seconds(void) {
    struct rusage ru;
    CHECK(getrusage(RUSAGE_SELF, &ru) == 0);
    return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

struct burster {
    struct cfa_thread thread;
};

static void burst_main(void *object) {
    (void)object;
    for (int i = 0; i < BURST_YIELDS; i++) cfa_yield();
}

static void measure(const char *label) {
    double wall0 = now_seconds(), cpu0 = cpu_seconds();
    cfa_sleep_ns(1000000000);
    double wall = now_seconds() - wall0, cpu = cpu_seconds() - cpu0;
    CHECK(wall >= 1.0, "slept %.3f s", wall);
    CHECK(cpu < LIMIT * wall, "%s: %.1f ms of CPU over %.3f s asleep (%.2f%%)", label, cpu * 1e3, wall,
          100 * cpu / wall);
    REPORT("idle: %d processors, 1 s of cfa_sleep_ns %s: CPU under 2%% ok\n", PROCS, label);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        struct extra_procs extra;
        procs_start(&extra, PROCS);
        CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), PROCS);
        struct burster bs[BURST_THREADS];
        memset(bs, 0, sizeof bs);
        for (int i = 0; i < BURST_THREADS; i++) cfa_thread_start(&bs[i].thread, burst_main, &bs[i], "Burst", 0);
        for (int i = 0; i < BURST_THREADS; i++) cfa_thread_join(&bs[i].thread);
        for (int i = 0; i < BURST_THREADS; i++) cfa_thread_destroy(&bs[i].thread);
        measure("after a burst");
        procs_stop(&extra);

        procs_start(&extra, PROCS);
        measure("from the start");
        procs_stop(&extra);
    }
    return 0;
}
