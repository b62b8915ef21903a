// A fork-join worker that parks in a task group's wait is replaced
// (runtime/src/forkjoin.c, invariant 4; docs/forkjoin.md, "Waiting"): on
// two processors, with their two workers, the main thread spawns A and
// waits (it parks: A runs on a worker); A spawns B and waits once B has
// started on the other worker (it parks too); B spawns C and spins until
// C has started. Every thread that could run C is parked in a wait or is
// B, and no worker sleeps, so only a replacement for A's worker can take
// C to the processor A left (without it: 20 s, then it fails). Repeated
// ROUNDS times: a spare left by one round replaces the next round's
// waiter.
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t | FileCheck %s
// CHECK: 20 rounds: C ran while its spawner spun and A's worker waited
#include "check.h"

#include <cfa/forkjoin.h>
#include <cfa/thread.h>
#include <stdatomic.h>

enum { ROUNDS = 20, DEADLINE_S = 20 };

static _Atomic int a_started, b_started, c_started;

static void spin_until(_Atomic int *flag, const char *what) {
    double deadline = now_seconds() + DEADLINE_S;
    while (!atomic_load(flag)) {
        CHECK(now_seconds() < deadline, "%s in %d s", what, DEADLINE_S);
        __builtin_ia32_pause();
    }
}

static void task_c(void *arg) {
    (void)arg;
    atomic_store(&c_started, 1);
}

/* Spawns fn(arg) into a group of its own, spins until *started, waits. */
static void spawn_spin_wait(void (*fn)(void *), void *arg, _Atomic int *started, const char *what) {
    cfa_task_group g;
    cfa_task_group_init(&g);
    cfa_task_spawn(&g, fn, arg);
    spin_until(started, what);
    cfa_task_group_wait(&g);
}

static void task_b(void *arg) {
    (void)arg;
    atomic_store(&b_started, 1);
    spawn_spin_wait(task_c, NULL, &c_started, "C did not start: nothing replaced the worker parked in A's wait");
}

static void task_a(void *arg) {
    struct cfa_thread *main_thread = arg;
    CHECK(cfa_active_thread() != main_thread, "A ran on the main thread");
    atomic_store(&a_started, 1);
    spawn_spin_wait(task_b, NULL, &b_started, "B did not start on the other worker");
}

int main(void) {
    struct extra_procs extra;
    procs_start(&extra, 2);
    for (int r = 0; r < ROUNDS; r++) {
        atomic_store(&a_started, 0);
        atomic_store(&b_started, 0);
        atomic_store(&c_started, 0);
        cfa_task_group g;
        cfa_task_group_init(&g);
        cfa_task_spawn(&g, task_a, cfa_active_thread());
        double deadline = now_seconds() + DEADLINE_S;
        while (!atomic_load(&a_started)) { /* a worker takes A (and the main thread never runs it) */
            CHECK(now_seconds() < deadline, "round %d: A did not start on a worker", r);
            cfa_yield();
        }
        cfa_task_group_wait(&g);
        CHECK_EQ(atomic_load(&c_started), 1);
    }
    procs_stop(&extra);
    printf("%d rounds: C ran while its spawner spun and A's worker waited\n", ROUNDS);
    return 0;
}
