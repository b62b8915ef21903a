// owner_lock, functional: recursion (depth counts, the lock is free after as
// many unlocks); another thread cannot take a held lock; FIFO hand-off:
// waiters get the lock in arrival order and the unlocker cannot take it
// back ahead of them (no barging); a waiter owns the lock at depth 1.
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: recursion ok
// CHECK-NEXT: FIFO hand-off: 0 1 2 3 4
#include "tasks.h"

#include <cfa/locks.hfa>

static owner_lock l;
static _Atomic int other_got;
static void try_other(void *unused) {
    bool got = try_lock(&l);
    atomic_store(&other_got, got ? 1 : 2);
    if (got) unlock(&l);
}

static int order[5], served;
static void queued(void *p) {
    int id = (int)(intptr_t)p;
    lock(&l);
    CHECK_EQ(cfa_owner_lock_depth(&l), 1);
    lock(&l);                                   /* nests on a handed-over lock too */
    order[served++] = id;
    unlock(&l);
    unlock(&l);
}

int main(void) {
    lock(&l);
    lock(&l);
    CHECK(try_lock(&l), "try_lock by the holder nests");
    CHECK_EQ(cfa_owner_lock_depth(&l), 3);
    task_join(task_spawn(try_other, NULL, "other"));
    CHECK_EQ(atomic_load(&other_got), 2);
    unlock(&l);
    unlock(&l);
    CHECK(holds(&l), "still held at depth 1");
    unlock(&l);
    CHECK(!holds(&l) && cfa_owner_lock_depth(&l) == 0, "free");
    task_join(task_spawn(try_other, NULL, "other"));
    CHECK_EQ(atomic_load(&other_got), 1);
    CHECK(!holds(&l) && try_lock(&l), "free after the other thread's unlock");
    unlock(&l);
    printf("recursion ok\n");

    lock(&l);
    struct task *t[5];
    for (int i = 0; i < 5; i++) {
        t[i] = task_spawn(queued, (void *)(intptr_t)i, "queued");
        YIELD_UNTIL(atomic_load(&t[i]->thread.state) == CFA_THREAD_BLOCKED);
    }
    unlock(&l);
    CHECK(!try_lock(&l), "the unlocker barged past the waiters");
    for (int i = 0; i < 5; i++) task_join(t[i]);
    CHECK_EQ(served, 5);
    printf("FIFO hand-off:");
    for (int i = 0; i < 5; i++) printf(" %d", order[i]);
    printf("\n");
    return 0;
}
