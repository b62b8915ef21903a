// A yield with nothing else to run returns without a context switch
// (processor.c, processor_yield_alone), and that shortcut changes no
// scheduling decision:
//  1. "alone": the only thread of one processor yields YIELDS times; most
//     of them take the shortcut (CFA_STATS "yields alone"), the others are
//     the decisions that poll I/O or take a helping step.
//  2. "timer": on one processor, preemption off, a thread yields until a
//     sleeper's timer has fired and the sleeper ran: the shortcut must
//     leave the processor's I/O and timer polls on schedule, or this
//     never ends.
//  3. "helped": two processors, preemption off. A spinner never yields; a
//     victim is made ready behind it, in its processor's lanes; a yielder
//     on the other processor, whose lanes are empty, yields until the
//     victim has run. Nothing is stolen (a processor steals only when it
//     has nothing to run, and the yielder always has itself), so only
//     helping (thesis 4.4) can run the victim: the shortcut must keep the
//     helping steps coming (CFA_STATS "helped" counts it).
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t 1 alone 2> %t.err | FileCheck %s --check-prefix=ALONE
// RUN: FileCheck %s --check-prefix=ALONE-STATS < %t.err
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress timer | FileCheck %s --check-prefix=TIMER
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t %stress helped 2> %t.err | FileCheck %s --check-prefix=HELPED
// RUN: FileCheck %s --check-prefix=HELPED-STATS < %t.err
// ALONE: alone: 1000000 yields
// ALONE-STATS: yields alone {{[1-9][0-9][0-9][0-9][0-9][0-9]+}}
// TIMER: timer: the sleeper ran after {{[0-9]+}} yields
// HELPED: helped: the victim ran
// HELPED-STATS: helped {{[1-9][0-9]*}}, stolen
#include "sched_test.h"

enum { YIELDS = 1000000 };

static _Atomic int yielder_running, victim_ran, sleeper_ran;

static void victim_main(void *object) {
    (void)object;
    atomic_store(&victim_ran, 1);
}

static struct cfa_thread victim;

static void spinner_main(void *object) {
    (void)object;
    while (!atomic_load(&yielder_running)) __builtin_ia32_pause();
    /* Both run now, one on each processor: the victim goes to this one's lanes. */
    cfa_thread_start(&victim, victim_main, NULL, "Victim", 0);
    while (!atomic_load(&victim_ran)) __builtin_ia32_pause();
}

static void yielder_main(void *object) {
    (void)object;
    atomic_store(&yielder_running, 1);
    while (!atomic_load(&victim_ran)) cfa_yield();
}

static void sleeper_main(void *object) {
    (void)object;
    cfa_sleep_ns(1000000);
    atomic_store(&sleeper_ran, 1);
}

static long timer_yields;

static void waiter_main(void *object) {
    (void)object;
    while (!atomic_load(&sleeper_ran)) {
        cfa_yield();
        timer_yields++;
    }
}

static void helped(void) {
    struct extra_procs extra;
    procs_start(&extra, 2);
    static struct cfa_thread spinner, yielder;
    atomic_store(&yielder_running, 0);
    atomic_store(&victim_ran, 0);
    cfa_thread_start(&spinner, spinner_main, NULL, "Spinner", 0);
    cfa_thread_start(&yielder, yielder_main, NULL, "Yielder", 0);
    cfa_thread_destroy(&spinner);
    cfa_thread_destroy(&yielder);
    cfa_thread_destroy(&victim);
    procs_stop(&extra);
    CHECK_EQ(atomic_load(&victim_ran), 1);
    REPORT("helped: the victim ran\n");
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    CHECK(argc > 2, "usage: yield_alone reps alone|timer|helped");
    for (rep_index = 0; rep_index < reps; rep_index++) {
        if (!strcmp(argv[2], "alone")) {
            for (int i = 0; i < YIELDS; i++) cfa_yield();
            REPORT("alone: %d yields\n", YIELDS);
        } else if (!strcmp(argv[2], "timer")) {
            static struct cfa_thread sleeper, waiter;
            atomic_store(&sleeper_ran, 0);
            timer_yields = 0;
            cfa_thread_start(&sleeper, sleeper_main, NULL, "Sleeper", 0);
            cfa_thread_start(&waiter, waiter_main, NULL, "Waiter", 0);
            cfa_thread_destroy(&waiter);
            cfa_thread_destroy(&sleeper);
            CHECK_EQ(atomic_load(&sleeper_ran), 1);
            REPORT("timer: the sleeper ran after %ld yields\n", timer_yields);
        } else if (!strcmp(argv[2], "helped")) {
            helped();
        } else {
            CHECK(0, "unknown mode %s", argv[2]);
        }
    }
    return 0;
}
