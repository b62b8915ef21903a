// Dining philosophers with two mutex parameters: each meal is a mutex call
// on the two forks (monitors), acquired atomically in one global order, so
// 5 philosophers on 2 processors eat 100,000 meals with no deadlock, and a
// fork is never held by two philosophers at once.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: meals 100000, forks never shared
#include "mutex_call.h"

enum { PHILOSOPHERS = 5, MEALS = 20000 };
struct fork { _Atomic int users; long uses; struct cfa_monitor mon; };
static struct fork forks[PHILOSOPHERS];
static _Atomic long meals;

static void eat(struct fork *left, struct fork *right) {
    MUTEX_CALL(eat, &left->mon, &right->mon);
    CHECK_EQ(atomic_fetch_add(&left->users, 1), 0);
    CHECK_EQ(atomic_fetch_add(&right->users, 1), 0);
    left->uses++;
    right->uses++;
    if (atomic_fetch_add(&meals, 1) % 7 == 0) cfa_yield(); /* hold both a while */
    atomic_fetch_sub(&left->users, 1);
    atomic_fetch_sub(&right->users, 1);
}

struct philosopher { int seat; struct cfa_thread thread; };
static void philosopher_main(void *o) {
    struct philosopher *p = o;
    /* Left then right for all: classic deadlock with plain locks. */
    for (int i = 0; i < MEALS; i++) eat(&forks[p->seat], &forks[(p->seat + 1) % PHILOSOPHERS]);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        memset(forks, 0, sizeof forks);
        atomic_store(&meals, 0);
        struct cfa_processor p = {0};
        cfa_processor_start(&p);
        struct philosopher ph[PHILOSOPHERS];
        for (int i = 0; i < PHILOSOPHERS; i++) {
            ph[i] = (struct philosopher){ .seat = i };
            cfa_thread_start(&ph[i].thread, philosopher_main, &ph[i], "Philosopher", 0);
        }
        for (int i = PHILOSOPHERS - 1; i >= 0; i--) cfa_thread_destroy(&ph[i].thread);
        cfa_processor_stop(&p);
        long uses = 0;
        for (int i = 0; i < PHILOSOPHERS; i++) uses += forks[i].uses;
        CHECK_EQ(atomic_load(&meals), PHILOSOPHERS * MEALS);
        CHECK_EQ(uses, 2L * PHILOSOPHERS * MEALS);
        if (r == 0) printf("meals %ld, forks never shared\n", atomic_load(&meals));
    }
    return 0;
}
