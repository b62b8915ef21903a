// Futures, functional: all-zero is empty; fulfil makes the value available
// to any number of gets, including threads that blocked before it; values
// of any size; reset makes the future reusable, round after round.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: empty, fulfil, get ok
// CHECK-NEXT: 10 blocked getters woken with the value ok
// CHECK-NEXT: struct values ok
// CHECK-NEXT: 100 rounds of reset and reuse ok
#include "tasks.h"

#include <cfa/future.hfa>

future_type(Answer, long);
struct Pair { double x; char name[40]; };
future_type(Pairs, struct Pair);

static Answer f;

struct getter { long got; };
static void getter_main(void *p) { ((struct getter *)p)->got = get(&f); }

static void basics(void) {
    Answer a = { 0 };
    CHECK(!available(&a), "a zero future is empty");
    fulfil(&a, 12);
    CHECK(available(&a), "fulfilled");
    CHECK_EQ(get(&a), 12);
    CHECK_EQ(get(&a), 12);
    reset(&a);
    CHECK(!available(&a), "empty after reset");
    reset(&a);                                   /* resetting an empty future is fine */
    printf("empty, fulfil, get ok\n");
}

static void blocked_getters(void) {
    struct getter g[10];
    struct task  *t[10];
    for (int i = 0; i < 10; i++) {
        g[i].got = -1;
        t[i] = task_spawn(getter_main, &g[i], "getter");
    }
    for (int i = 0; i < 10; i++) YIELD_UNTIL(atomic_load(&t[i]->thread.state) == CFA_THREAD_BLOCKED);
    fulfil(&f, 99);
    for (int i = 0; i < 10; i++) {
        task_join(t[i]);
        CHECK_EQ(g[i].got, 99);
    }
    reset(&f);
    printf("10 blocked getters woken with the value ok\n");
}

static Pairs pf;
static void pair_getter(void *unused) {
    struct Pair p = get(&pf);
    CHECK(p.x == 1.25 && strcmp(p.name, "a name longer than sixteen bytes") == 0, "pair");
}
static void struct_values(void) {
    struct task *t = task_spawn(pair_getter, NULL, "pair getter");
    struct Pair p = { 1.25, "a name longer than sixteen bytes" };
    fulfil(&pf, p);
    task_join(t);
    printf("struct values ok\n");
}

static void rounds(void) {
    for (long r = 0; r < 100; r++) {
        struct getter g[3];
        struct task  *t[3];
        for (int i = 0; i < 3; i++) t[i] = task_spawn(getter_main, &g[i], "getter");
        if (r % 2) cfa_yield();          /* getters block first, or come late */
        fulfil(&f, r);
        for (int i = 0; i < 3; i++) {
            task_join(t[i]);
            CHECK_EQ(g[i].got, r);
        }
        reset(&f);
    }
    printf("100 rounds of reset and reuse ok\n");
}

int main(void) {
    basics();
    blocked_getters();
    struct_values();
    rounds();
    return 0;
}
