// The spin an idle processor makes before it sleeps adapts (idle.c,
// spin_outcome): spins that find nothing shorten it, down to its floor,
// and a spin that finds work restores it in full. One processor:
//  1. "misses": the only thread sleeps SLEEPS times for 200 us. Each
//     time the processor idles, searches, spins and sleeps until the
//     timer: every spin misses, so the spin ends at its floor (CFA_STATS
//     "spin now 160-160").
//  2. "found": the same, then a worker is made ready by a kernel thread
//     of the test's own while the idle processor stands between its
//     search and its spin (the test hook holds it at that step until the
//     worker is pushed): that spin finds the worker, and the spin is back
//     in full (2560). The few idles after it cannot halve it again.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t misses 2> %t.err | FileCheck %s --check-prefix=MISSES
// RUN: FileCheck %s --check-prefix=MISSES-STATS < %t.err
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t found 2> %t.err | FileCheck %s --check-prefix=FOUND
// RUN: FileCheck %s --check-prefix=FOUND-STATS < %t.err
// MISSES: misses: 64 sleeps
// MISSES-STATS: cluster main: processors 1,
// MISSES-STATS: spins found work {{[0-9]+}}, found none {{[1-9][0-9]+}}, spin now 160-160 TSC
// FOUND: found: the worker ran
// FOUND-STATS: cluster main: processors 1,
// FOUND-STATS: spins found work {{[1-9][0-9]*}}, found none {{[1-9][0-9]+}}, spin now 2560-2560 TSC
#include "sched_test.h"

#include <cfa/sleep.h>
#include <cfa/test_hook.h>
#include <cfa/kernel_thread.h>

enum { SLEEPS = 64, SLEEP_NS = 200 * 1000 };

static _Atomic int armed, at_search, pushed, worker_ran;
static struct cfa_thread worker;

/* Holds the idle processor between its search and its spin, once armed,
 * until the kernel thread below has pushed the worker. */
void cfa_test_hook(enum cfa_test_step step) {
    if (step != CFA_STEP_SEARCHED || !atomic_exchange(&armed, 0))
        return;
    atomic_store(&at_search, 1);
    while (!atomic_load(&pushed))
        sched_yield();
}

static void *pusher(void *unused) {
    (void)unused;
    while (!atomic_load(&at_search))
        sched_yield();
    cfa_unpark(&worker);
    atomic_store(&pushed, 1);
    return NULL;
}

static void worker_main(void *object) {
    (void)object;
    cfa_park();
    atomic_store(&worker_ran, 1);
}

static void sleep_many(void) {
    for (int i = 0; i < SLEEPS; i++)
        cfa_sleep_ns(SLEEP_NS);
}

int main(int argc, char **argv) {
    CHECK(argc > 1, "usage: idle_spin misses|found");
    if (!strcmp(argv[1], "misses")) {
        sleep_many();
        printf("misses: %d sleeps\n", SLEEPS);
        return 0;
    }
    CHECK(!strcmp(argv[1], "found"), "unknown mode %s", argv[1]);
    cfa_thread_start(&worker, worker_main, NULL, "Worker", 0);
    wait_until_blocked(&worker);
    sleep_many(); /* the spin at its floor */
    pthread_t k; /* a kernel thread, not a pthread (a user thread, which would add processors) */
    CHECK(cfa_kernel_thread_create(&k, NULL, pusher, NULL) == 0);
    atomic_store(&armed, 1);
    while (!atomic_load(&worker_ran))
        cfa_sleep_ns(SLEEP_NS); /* idles: the hook fires at the first search */
    CHECK(cfa_kernel_thread_join(k, NULL) == 0);
    cfa_thread_join(&worker);
    cfa_thread_destroy(&worker);
    printf("found: the worker ran\n");
    return 0;
}
