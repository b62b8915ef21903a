// Nested mutex calls on different monitors, with wait in the inner one:
// wait releases only the inner call's monitor; the outer one stays held
// (the nested monitor problem, as in uC++ and Cforall), so another thread
// can enter the inner monitor (and signal) but not the outer one.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: inner entered while outer held: yes
// CHECK-NEXT: outer entered only after the waiter left: yes
#include "mutex_call.h"

struct mon { int value; struct cfa_condition c; struct cfa_monitor mon; };
static struct mon outer, inner;
static _Atomic int waiting, outer_entered, waiter_done;

static void inner_wait(struct mon *in) {
    MUTEX_CALL(inner_wait, &in->mon);
    atomic_store(&waiting, 1);
    cfa_wait(&in->c, 0);
    in->value++;
}
static void outer_call(struct mon *out, struct mon *in) {
    MUTEX_CALL(outer_call, &out->mon);
    inner_wait(in);
    out->value++;
    atomic_store(&waiter_done, 1);
}
static bool inner_signal(struct mon *in) { MUTEX_CALL(inner_signal, &in->mon); return cfa_signal(&in->c); }
static void outer_touch(struct mon *out) {
    MUTEX_CALL(outer_touch, &out->mon);
    CHECK(atomic_load(&waiter_done), "entered the outer monitor while the waiter held it");
    atomic_store(&outer_entered, 1);
}

struct task { int kind; struct cfa_thread thread; };
static void task_main(void *o) {
    struct task *t = o;
    if (t->kind == 0) outer_call(&outer, &inner);
    else outer_touch(&outer);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    for (long r = 0; r < repeat; r++) {
        memset(&outer, 0, sizeof outer);
        memset(&inner, 0, sizeof inner);
        atomic_store(&waiting, 0);
        atomic_store(&outer_entered, 0);
        atomic_store(&waiter_done, 0);
        struct cfa_processor p = {0};
        cfa_processor_start(&p);
        struct task waiter = { 0 }, toucher = { 1 };
        cfa_thread_start(&waiter.thread, task_main, &waiter, "Waiter", 0);
        while (!atomic_load(&waiting)) cfa_yield();
        cfa_thread_start(&toucher.thread, task_main, &toucher, "Toucher", 0);
        for (int i = 0; i < 100; i++) cfa_yield();
        CHECK(!atomic_load(&outer_entered));
        bool signalled = inner_signal(&inner); /* the inner monitor is free: we get in */
        CHECK(signalled);
        cfa_thread_destroy(&waiter.thread);
        cfa_thread_destroy(&toucher.thread);
        cfa_processor_stop(&p);
        CHECK(atomic_load(&outer_entered));
        CHECK_EQ(outer.value, 1);
        CHECK_EQ(inner.value, 1);
        if (r == 0) {
            printf("inner entered while outer held: %s\n", signalled ? "yes" : "no");
            printf("outer entered only after the waiter left: yes\n");
        }
    }
    return 0;
}
