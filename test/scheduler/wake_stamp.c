// The stamp of a thread woken by the thread running on a processor
// (thread_internal.h, thread_make_ready_local; docs/scheduler.md,
// "Timestamps") is that processor's last pop time, not a new TSC reading,
// and it is never 0 and never later than the wake-up.
// One processor, preemption off: main starts a sleeper and yields until
// it has parked (so main got the CPU back from a pop), reads the TSC,
// spins without a scheduling decision, then unparks the sleeper. The
// sleeper cannot run before main blocks, so its stamp is still the one
// the unpark gave it: it must predate the spin (a stamp read at the
// unpark would not), and must not be 0.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress | FileCheck %s
// CHECK: stamp: the woken thread's stamp predates its waker's spin
#include "sched_test.h"

static struct cfa_thread sleeper;
static _Atomic int sleeper_woke;

static void sleeper_main(void *object) {
    (void)object;
    cfa_park();
    atomic_store(&sleeper_woke, 1);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        atomic_store(&sleeper_woke, 0);
        cfa_thread_start(&sleeper, sleeper_main, NULL, "Sleeper", 0);
        while (atomic_load(&sleeper.ticket) >= 0) /* -1: blocked in its park */
            cfa_yield();
        uint64_t spin_start = __builtin_ia32_rdtsc();
        while (__builtin_ia32_rdtsc() - spin_start < 1000000)
            __builtin_ia32_pause();
        cfa_unpark(&sleeper);
        uint64_t stamp = sleeper.ready_stamp, woken_by = __builtin_ia32_rdtsc();
        CHECK(stamp != 0, "a ready thread's stamp is 0");
        CHECK(stamp <= spin_start, "the stamp (%llu) is %llu cycles after the spin started: read at the unpark",
              (unsigned long long)stamp, (unsigned long long)(stamp - spin_start));
        CHECK(stamp <= woken_by, "the stamp is later than the wake-up");
        CHECK_EQ(atomic_load(&sleeper_woke), 0);
        cfa_thread_destroy(&sleeper);
        CHECK_EQ(atomic_load(&sleeper_woke), 1);
        REPORT("stamp: the woken thread's stamp predates its waker's spin\n");
    }
    return 0;
}
