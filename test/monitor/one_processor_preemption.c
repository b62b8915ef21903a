// Preemption never stops a thread inside a one-processor window (the flag
// test and the unlocked instruction of a mutex call, cfa/mutex_call.h):
// two threads on the only processor make short mutex calls for 300 ms,
// with a time slice of 1 ms. Some preemption signals land inside a window
// and must be dropped (counted by CFA_STATS), the others preempt; the
// calls are all counted and never overlap. Each thread has its own
// monitor: on a shared one, the first preemption inside the monitor turns
// the two into a convoy (each call a hand-off, hence a switch), and the
// ticker, which signals only a processor that has not switched for a tick,
// then has nothing to do.
// (Sanitizer builds run without preemption.)
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 CFA_STATS=1 %timeout %t 2>&1 | FileCheck %s
// CHECK: overlaps 0, calls counted 1
// CHECK: cfa stats: preemption: signals {{[1-9][0-9]*}}, yields {{[1-9][0-9]*}}, in a one-processor window {{[1-9][0-9]*}}
#include "mutex_call.h"
#include <time.h>

struct counter { long calls; int inside; struct cfa_monitor mon; };
static long overlaps;

static void bump(struct counter *c) {
    MUTEX_CALL(bump, &c->mon);
    if (++c->inside != 1)
        overlaps++;
    c->calls++;
    c->inside--;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

struct worker { long made; struct counter c; struct cfa_thread thread; };
static double until;
static void worker_main(void *object) {
    struct worker *w = object;
    while (now() < until)
        for (int i = 0; i < 1000; i++, w->made++)
            bump(&w->c);
}

int main(void) {
    until = now() + 0.3;
    struct worker w[2] = {0};
    for (int i = 0; i < 2; i++) cfa_thread_start(&w[i].thread, worker_main, &w[i], "Worker", 0);
    for (int i = 0; i < 2; i++) cfa_thread_destroy(&w[i].thread);
    printf("overlaps %ld, calls counted %d\n", overlaps, w[0].c.calls == w[0].made && w[1].c.calls == w[1].made);
    fflush(stdout);
    return 0;
}
