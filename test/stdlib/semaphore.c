// semaphore, functional: init's permits, try_P, V; all-zero has no permit;
// blocked P callers are served in FIFO order and a V hands its permit to
// the oldest of them (the V-ing thread cannot take it back with try_P).
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: permits ok
// CHECK-NEXT: FIFO: 0 1 2 3 4
#include "tasks.h"

#include <cfa/locks.hfa>

static semaphore s;
static int order[5], served;
static void taker(void *p) {
    P(&s);
    order[served++] = (int)(intptr_t)p;
}

int main(void) {
    CHECK_EQ(permits(&s), 0);
    CHECK(!try_P(&s), "all-zero: no permit");
    init(&s, 3);
    for (int i = 0; i < 3; i++) CHECK(try_P(&s), "permit %d", i);
    CHECK(!try_P(&s), "only 3");
    V(&s);
    CHECK_EQ(permits(&s), 1);
    P(&s);
    CHECK_EQ(permits(&s), 0);
    printf("permits ok\n");

    struct task *t[5];
    for (int i = 0; i < 5; i++) {
        t[i] = task_spawn(taker, (void *)(intptr_t)i, "taker");
        YIELD_UNTIL(atomic_load(&t[i]->thread.state) == CFA_THREAD_BLOCKED);
    }
    for (int i = 0; i < 5; i++) {
        V(&s);
        CHECK(!try_P(&s), "the permit went to a waiter");
        CHECK_EQ(permits(&s), 0);
    }
    for (int i = 0; i < 5; i++) task_join(t[i]);
    printf("FIFO: %d %d %d %d %d\n", order[0], order[1], order[2], order[3], order[4]);
    return 0;
}
