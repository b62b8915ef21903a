// barrier, functional: 3 threads over 100 phases; nobody leaves a phase
// before all have arrived, exactly one wait per phase returns true (the
// last arrival), the barrier is reused at once; one party never blocks.
// Then the same on 2 processors (waiters spin before they park) with one
// party late by 1 ms in every 4th phase, so that the other's spin runs out
// and it parks; in the other phases it returns from its spin.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: 3 threads, 100 phases ok
// CHECK-NEXT: one party ok
// CHECK-NEXT: 2 processors, late party: 2 threads, 40 phases ok
#include "tasks.h"

#include <cfa/locks.hfa>
#include <cfa/sleep.h>

enum { PARTIES = 3, PHASES = 100 };
static barrier b;
static int     arrived[PHASES], last[PHASES];

static void party(void *unused) {
    for (int p = 0; p < PHASES; p++) {
        arrived[p]++;
        if (p % 7 == 0) cfa_yield();
        if (wait(&b)) last[p]++;
        CHECK_EQ(arrived[p], PARTIES);          /* everyone arrived before anyone left */
    }
}

enum { LATE_PHASES = 40 };
static barrier     pair;
static _Atomic int pair_arrived[LATE_PHASES], pair_last[LATE_PHASES];

static void late_party(void *late) {
    for (int p = 0; p < LATE_PHASES; p++) {
        if (late && p % 4 == 0) cfa_sleep_ns(1000000);
        atomic_fetch_add(&pair_arrived[p], 1);
        if (wait(&pair)) atomic_fetch_add(&pair_last[p], 1);
        CHECK_EQ(atomic_load(&pair_arrived[p]), 2);
    }
}

int main(void) {
    init(&b, PARTIES);
    struct task *t[PARTIES - 1];
    for (int i = 0; i < PARTIES - 1; i++) t[i] = task_spawn(party, NULL, "party");
    party(NULL);
    for (int i = 0; i < PARTIES - 1; i++) task_join(t[i]);
    for (int p = 0; p < PHASES; p++) CHECK_EQ(last[p], 1);
    printf("%d threads, %d phases ok\n", PARTIES, PHASES);

    barrier alone;
    init(&alone, 1);
    for (int i = 0; i < 10; i++) CHECK(wait(&alone), "a single party is always last");
    printf("one party ok\n");

    struct extra_procs procs;
    procs_start(&procs, 2);
    init(&pair, 2);
    struct task *late = task_spawn(late_party, (void *)1, "late party");
    late_party(NULL);
    task_join(late);
    for (int p = 0; p < LATE_PHASES; p++) CHECK_EQ(atomic_load(&pair_last[p]), 1);
    procs_stop(&procs);
    printf("2 processors, late party: 2 threads, %d phases ok\n", LATE_PHASES);
    return 0;
}
