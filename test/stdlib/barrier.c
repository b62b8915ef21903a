// barrier, functional: 3 threads over 100 phases; nobody leaves a phase
// before all have arrived, exactly one wait per phase returns true (the
// last arrival), the barrier is reused at once; one party never blocks.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: 3 threads, 100 phases ok
// CHECK-NEXT: one party ok
#include "tasks.h"

#include <cfa/locks.hfa>

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
    return 0;
}
