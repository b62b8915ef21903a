// A condition variable's signal is never lost in the window between the
// waiter letting the mutex go and blocking (runtime/src/pthread_cond.c,
// steps W2-W3): the test hook holds the waiter at that step
// (CFA_STEP_COND_RELEASED) until the signaller, which takes the mutex the
// waiter just let go, has set the predicate and signalled. Then the waiter
// must wake. Each round forces that order once, for a waiter that is a
// kernel thread (not a processor) and for one that is a user thread, with
// pthread_cond_signal and with pthread_cond_broadcast. A waiter still
// asleep 10 s after its signal is reported as a lost wake-up (with the
// signal lost it would sleep for ever).
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: kernel-thread waiter: 20 forced signals, none lost
// CHECK: user-thread waiter: 20 forced signals, none lost
#include "check.h"
#include "kthread.h"
#include <cfa/test_hook.h>
#include <pthread.h>

enum { ROUNDS = 20, LIMIT_S = 10 };

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int ready;               /* the predicate, under m */
static _Atomic int held;        /* the waiter reached the hook's step */
static _Atomic int signalled;   /* the signaller has signalled */
static _Atomic int woke;        /* the waiter returned from the wait */

void cfa_test_hook(enum cfa_test_step step) {
    if (step != CFA_STEP_COND_RELEASED)
        return;
    atomic_store(&held, 1);
    double end = now_seconds() + LIMIT_S;
    while (!atomic_load(&signalled) && now_seconds() < end)
        __builtin_ia32_pause();
}

static void waiter(void) {
    pthread_mutex_lock(&m);
    while (!ready)
        pthread_cond_wait(&c, &m);
    ready = 0;
    pthread_mutex_unlock(&m);
    atomic_store(&woke, 1);
}
static void *kernel_waiter(void *arg) { (void)arg; waiter(); return NULL; }
static void user_waiter(void *arg) { (void)arg; waiter(); }

static void pause_briefly(void) {
    if (cfa_active_thread())
        cfa_yield();
    else
        sched_yield();
}

/* One forced round: the waiter is held after letting the mutex go, the
 * signal is sent then, and the waiter must still wake. */
static void signal_while_held(const char *who, long round) {
    while (!atomic_load(&held))
        pause_briefly();
    pthread_mutex_lock(&m);
    ready = 1;
    if (round % 2)
        pthread_cond_broadcast(&c);
    else
        pthread_cond_signal(&c);
    pthread_mutex_unlock(&m);
    atomic_store(&signalled, 1);
    double end = now_seconds() + LIMIT_S;
    while (!atomic_load(&woke)) {
        CHECK(now_seconds() < end, "lost wake-up: the %s waiter of round %ld still waits %d s after "
              "pthread_cond_%s", who, round, LIMIT_S, round % 2 ? "broadcast" : "signal");
        pause_briefly();
    }
}

static void reset(void) {
    atomic_store(&held, 0);
    atomic_store(&signalled, 0);
    atomic_store(&woke, 0);
}

int main(int argc, char **argv) {
    long repeat = repeat_count(argc, argv);
    struct extra_procs extra;
    procs_start(&extra, 2); /* the held user-thread waiter keeps one busy */
    for (long rep = 0; rep < repeat; rep++) {
        for (long r = 0; r < ROUNDS; r++) {
            reset();
            pthread_t k = kthread_start(kernel_waiter, NULL);
            signal_while_held("kernel-thread", r);
            kthread_join(k);
        }
        if (rep == 0)
            printf("kernel-thread waiter: %d forced signals, none lost\n", ROUNDS);
        for (long r = 0; r < ROUNDS; r++) {
            reset();
            struct cfa_thread t = {0};
            cfa_thread_start(&t, user_waiter, NULL, "waiter", 0);
            signal_while_held("user-thread", r);
            cfa_thread_join(&t);
        }
        if (rep == 0)
            printf("user-thread waiter: %d forced signals, none lost\n", ROUNDS);
    }
    procs_stop(&extra);
    return 0;
}
