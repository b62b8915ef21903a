// cfa_unpark is callable from any kernel thread (thread.h): a plain
// pthread, not a processor, wakes a parked user thread 1000 times while
// the program's main thread waits in join. The runtime must neither lose
// a wake-up nor take the wait for a deadlock (something can wake it).
// Every 100th wake-up waits until the waiter has parked, so both orders
// (permit first, park first) are exercised whatever the schedule.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: pthread unparks 1000 times ok
#include "check.h"
#include <pthread.h>
#include <sched.h>

enum { WAKES = 1000 };

struct waiter {
    long              wakeups;
    struct cfa_thread thread;
};
static _Atomic int acks;

static void waiter_main(void *object) {
    struct waiter *w = object;
    for (int i = 0; i < WAKES; i++) {
        cfa_park();
        w->wakeups++;
        atomic_store(&acks, i + 1);
    }
}

static void *waker(void *arg) {
    struct waiter *w = arg;
    for (int i = 0; i < WAKES; i++) {
        if (i % 100 == 0) wait_until_blocked(&w->thread); /* an unpark that finds it parked */
        cfa_unpark(&w->thread);
        while (atomic_load(&acks) != i + 1) sched_yield();
    }
    return NULL;
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (long r = 0; r < reps; r++) {
        struct waiter w;
        memset(&w, 0, sizeof w);
        atomic_store(&acks, 0);
        cfa_thread_start(&w.thread, waiter_main, &w, "Waiter", 0);
        pthread_t pt;
        CHECK(cfa_kernel_thread_create(&pt, NULL, waker, &w) == 0);
        cfa_thread_join(&w.thread);
        cfa_kernel_thread_join(pt, NULL);
        CHECK_EQ(w.wakeups, WAKES);
        cfa_thread_destroy(&w.thread);
    }
    printf("pthread unparks %d times ok\n", WAKES);
    return 0;
}
