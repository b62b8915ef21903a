// An idle processor's exhaustive search (runtime/src/ready_queue.c,
// ready_pop_exhaustive) leaves to its owner a thread inside its steal
// grace in the lanes of a processor that is not idle, and does not sleep
// on it: the owner runs it in a moment, and taking it would move a
// hand-off chain off its processor (docs/scheduler.md, "Steal grace").
// Forced: the test hook holds the idle processor between its
// registration and its search (CFA_STEP_REGISTERED); then a spinner,
// started on the busy one, stretches the grace (cfa_test_steal_grace) to
// about 0.4 s, makes the thread ready there, and spins on until the grace
// is half over. The spinner starts only once the other processor is held,
// and every decision reads the TSC (cfa_test_decision_clock): the
// thread's ready stamp is its waker's processor's last decision
// (docs/scheduler.md, "Timestamps"), so a spinner that first waited for
// the other processor to go idle would make it look older by that wait,
// which a loaded machine can stretch past the grace. The thread must not run before the spinner ends: the search
// leaves it, and no steal or help may take it inside the grace. Without
// the rule the search takes it at once and it runs beside the spinner.
// Each round also checks that the held search, having left it, did not
// sleep (it unregistered without reaching CFA_STEP_SEARCHED).
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t %stress | FileCheck %s
// CHECK: 3 rounds: the search left the thread to its busy processor
#include "check.h"

#include <cfa/test_hook.h>
#include <cfa/testing.h>
#include <x86intrin.h>

enum { GRACE_TSC = 1ull << 30 }; /* about 0.4 s at 2.5 GHz */

static _Atomic int armed;       /* the round's next registration is held */
static _Atomic int held;        /* an idle processor is held before its search */
static _Atomic int pushed;      /* the thread is ready, in the spinner's lanes */
static _Atomic int searched;    /* the held search is over (unregistered) */
static _Atomic int slept;       /* ... and it reached the sleep step first */
static _Atomic int holding;     /* the hook holds this registration */
static _Atomic int ran;         /* the thread ran */
static _Atomic unsigned long long ran_tsc, spinner_end_tsc;

void cfa_test_hook(enum cfa_test_step step) {
    if (step == CFA_STEP_REGISTERED && atomic_exchange(&armed, 0)) {
        atomic_store(&holding, 1);
        atomic_store(&held, 1);
        double until = now_seconds() + 10;
        while (!atomic_load(&pushed) && now_seconds() < until) {}
    } else if (step == CFA_STEP_SEARCHED && atomic_load(&holding)) {
        atomic_store(&slept, 1);
    } else if (step == CFA_STEP_UNREGISTERED && atomic_exchange(&holding, 0)) {
        atomic_store(&searched, 1);
    }
}

static struct cfa_thread target, spinner;

static void target_main(void *arg) {
    (void)arg;
    cfa_park();
    atomic_store(&ran_tsc, __rdtsc());
    atomic_store(&ran, 1);
}

static void spinner_main(void *arg) {
    (void)arg;
    double until = now_seconds() + 10;
    cfa_test_steal_grace(GRACE_TSC); /* nobody steals: one processor spins, the other is held */
    unsigned long long pushed_tsc = __rdtsc();
    cfa_unpark(&target);
    atomic_store(&pushed, 1);
    while (!atomic_load(&searched) && now_seconds() < until) {}
    CHECK(atomic_load(&searched), "the held search never ended");
    while (__rdtsc() - pushed_tsc < GRACE_TSC / 2) {} /* inside the grace */
    atomic_store(&spinner_end_tsc, __rdtsc());
    cfa_test_steal_grace(0);
}

int main(int argc, char **argv) {
    long rounds = 3 * repeat_count(argc, argv);
    struct extra_procs procs;
    cfa_test_decision_clock(false);
    procs_start(&procs, 2);
    for (long r = 0; r < rounds; r++) {
        _Atomic int *flags[] = { &armed, &held, &pushed, &searched, &slept, &holding, &ran };
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
            atomic_store(flags[i], 0);
        /* The processor that does not run this thread goes idle (woken by
         * the target's start if it slept) and is held. */
        atomic_store(&armed, 1);
        cfa_thread_start(&target, target_main, NULL, "Target", 0);
        wait_until_blocked(&target);
        double until = now_seconds() + 10;
        while (!atomic_load(&held) && now_seconds() < until) cfa_yield();
        CHECK(atomic_load(&held), "round %ld: no processor went idle", r);
        cfa_thread_start(&spinner, spinner_main, NULL, "Spinner", 0);
        cfa_thread_join(&spinner);
        cfa_thread_join(&target);
        CHECK(atomic_load(&ran_tsc) >= atomic_load(&spinner_end_tsc),
              "round %ld: the idle search took a thread inside its grace from a busy processor", r);
        CHECK(!atomic_load(&slept), "round %ld: the search slept with a thread in sight", r);
        cfa_thread_destroy(&spinner);
        cfa_thread_destroy(&target);
    }
    procs_stop(&procs);
    printf("%ld rounds: the search left the thread to its busy processor\n", rounds);
    return 0;
}
