// Preemption never stops a thread inside a one-processor window (the flag
// test and the unlocked instruction of a mutex call, cfa/mutex_call.h).
//
// Where a real signal lands is luck, so the handler is run at chosen
// places (cfa_test_preemption_at, cfa/testing.h): at every byte of every
// window in this program's own code the tick is dropped, and just after
// each window (the jump over the locked variant) the thread yields.
// CFA_STATS then counts those as real signals: every window byte "in a
// one-processor window", every window end a yield.
//
// Then the real thing: two threads on the only processor make short
// mutex calls for 300 ms with a time slice of 1 ms; however the signals
// land, the calls are all counted and never overlap. Each thread has its
// own monitor: on a shared one, the first preemption inside the monitor
// turns the two into a convoy (each call a hand-off, hence a switch), and
// the ticker, which signals only a processor that has not switched for a
// tick, then has nothing to do.
// (Sanitizer builds run without preemption.)
//
// UNSUPPORTED: sanitizer
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: env CFA_PREEMPTION_MS=1 CFA_STATS=1 %timeout %t 2>&1 | FileCheck %s
// CHECK: windows {{[1-9][0-9]*}}: every byte dropped, every end preempted
// CHECK: overlaps 0, calls counted 1
// CHECK: cfa stats: preemption: signals {{[1-9][0-9]*}}, yields {{[1-9][0-9]*}}, in a one-processor window {{[1-9][0-9]*}}
#include "mutex_call.h"
#include <cfa/testing.h>
#include <stdint.h>
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

/* The windows as mutex_call.h lays them out (offsets from each field). */
struct window { int32_t start, end; };
extern const struct window __start_cfa_one_processor_windows[] __attribute__((weak));
extern const struct window __stop_cfa_one_processor_windows[] __attribute__((weak));

/* The runtime's own code (its mutex calls have windows too, but the
 * handler never preempts the runtime anyway). */
extern const char __start_cfa_runtime_text[] __attribute__((weak));
extern const char __stop_cfa_runtime_text[] __attribute__((weak));

static int forced_signals(void) {
    int windows = 0;
    for (const struct window *w = __start_cfa_one_processor_windows; w < __stop_cfa_one_processor_windows; w++) {
        const char *start = (const char *)&w->start + w->start, *end = (const char *)&w->end + w->end;
        if (start >= __start_cfa_runtime_text && start < __stop_cfa_runtime_text)
            continue;
        for (const char *pc = start; pc < end; pc++)
            CHECK(!cfa_test_preemption_at(pc), "preempted inside a window, %td bytes in", pc - start);
        CHECK(cfa_test_preemption_at(end), "not preempted just after a window");
        windows++;
    }
    CHECK(windows > 0, "no one-processor window in a program with mutex calls");
    return windows;
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
    printf("windows %d: every byte dropped, every end preempted\n", forced_signals());
    until = now() + 0.3;
    struct worker w[2] = {0};
    for (int i = 0; i < 2; i++) cfa_thread_start(&w[i].thread, worker_main, &w[i], "Worker", 0);
    for (int i = 0; i < 2; i++) cfa_thread_destroy(&w[i].thread);
    printf("overlaps %ld, calls counted %d\n", overlaps, w[0].c.calls == w[0].made && w[1].c.calls == w[1].made);
    fflush(stdout);
    return 0;
}
