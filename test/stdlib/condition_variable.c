// condition_variable, functional: a one-slot buffer with two conditions on
// a mutex_lock keeps order; with an owner_lock held twice, wait releases it
// entirely (another thread locks it meanwhile) and returns at depth 2;
// notify_one wakes waiters in FIFO order, notify_all wakes all and says how
// many; wait_for times out (false, lock held again) or is notified (true).
//
// RUN: %std-cc %s -o %t %std-link
// RUN: %timeout %t | FileCheck %s
// CHECK: one-slot buffer ok
// CHECK-NEXT: owner_lock depth kept ok
// CHECK-NEXT: notify order: 0 1 2 3, notify_all woke 3
// CHECK-NEXT: wait_for ok
#include "tasks.h"

#include <cfa/locks.hfa>

/* ---- one-slot buffer ---- */
static mutex_lock         m;
static condition_variable not_full, not_empty;
static int                slot, full;
static void producer(void *unused) {
    for (int i = 0; i < 1000; i++) {
        lock(&m);
        while (full) wait(&not_full, &m);
        CHECK(holds(&m), "wait returned without the lock");
        slot = i;
        full = 1;
        notify_one(&not_empty);
        unlock(&m);
    }
}
static void buffer(void) {
    struct task *t = task_spawn(producer, NULL, "producer");
    for (int i = 0; i < 1000; i++) {
        lock(&m);
        while (!full) wait(&not_empty, &m);
        CHECK_EQ(slot, i);
        full = 0;
        notify_one(&not_full);
        unlock(&m);
    }
    task_join(t);
    printf("one-slot buffer ok\n");
}

/* ---- owner_lock ---- */
static owner_lock         ol;
static condition_variable cv;
static int                flag;
static void set_flag(void *unused) {
    lock(&ol);                                  /* possible only while the waiter waits */
    flag = 1;
    notify_one(&cv);
    unlock(&ol);
}
static void owner_depth(void) {
    lock(&ol);
    lock(&ol);
    struct task *t = task_spawn(set_flag, NULL, "setter");
    while (!flag) wait(&cv, &ol);
    CHECK_EQ(cfa_owner_lock_depth(&ol), 2);
    unlock(&ol);
    unlock(&ol);
    task_join(t);
    printf("owner_lock depth kept ok\n");
}

/* ---- notify order ---- */
static int woken[4], nwoken, go;
static void waiter(void *p) {
    lock(&ol);
    while (!go) wait(&cv, &ol);
    woken[nwoken++] = (int)(intptr_t)p;
    go = 0;                                     /* one notify_one lets one through */
    unlock(&ol);
}
static void waiter_all(void *p) {
    lock(&m);
    wait(&cv, &m);
    nwoken++;
    unlock(&m);
}
static void notify_order(void) {
    CHECK_EQ(notify_one(&cv), 0);
    CHECK(empty(&cv), "no waiter yet");
    struct task *t[4];
    for (int i = 0; i < 4; i++) {
        t[i] = task_spawn(waiter, (void *)(intptr_t)i, "waiter");
        YIELD_UNTIL(atomic_load(&t[i]->thread.state) == CFA_THREAD_BLOCKED);
    }
    CHECK(!empty(&cv), "waiters");
    for (int i = 0; i < 4; i++) {
        lock(&ol);
        go = 1;
        CHECK_EQ(notify_one(&cv), 1);
        unlock(&ol);
        YIELD_UNTIL(nwoken == i + 1);
    }
    for (int i = 0; i < 4; i++) task_join(t[i]);
    printf("notify order: %d %d %d %d", woken[0], woken[1], woken[2], woken[3]);
    nwoken = 0;
    for (int i = 0; i < 3; i++) {
        t[i] = task_spawn(waiter_all, NULL, "waiter");
        YIELD_UNTIL(atomic_load(&t[i]->thread.state) == CFA_THREAD_BLOCKED);
    }
    printf(", notify_all woke %u\n", notify_all(&cv));
    for (int i = 0; i < 3; i++) task_join(t[i]);
    CHECK_EQ(nwoken, 3);
}

/* ---- wait_for ---- */
static void notify_later(void *unused) {
    lock(&m);
    notify_one(&cv);
    unlock(&m);
}
static void timed(void) {
    lock(&m);
    double t0 = now_seconds();
    CHECK(!wait_for(&cv, &m, ms(20)), "no notify: timed out");
    double dt = now_seconds() - t0;
    CHECK(dt >= 0.019, "timed out after %g s", dt);
    CHECK(holds(&m) && empty(&cv), "lock held, record gone");
    struct task *t = task_spawn(notify_later, NULL, "notifier");
    CHECK(wait_for(&cv, &m, s(30)), "notified before the timeout");
    CHECK(holds(&m), "lock held");
    unlock(&m);
    task_join(t);
    lock(&ol);
    CHECK(!wait_for(&cv, &ol, ms(-1)), "a non-positive timeout only releases and retakes");
    CHECK(holds(&ol), "owner_lock held");
    unlock(&ol);
    printf("wait_for ok\n");
}

int main(void) {
    buffer();
    owner_depth();
    notify_order();
    timed();
    return 0;
}
