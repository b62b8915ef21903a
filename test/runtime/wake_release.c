// wake_release: a thread parked in a monitor, a fork-join wait or a pthread
// mutex does not return from its wait while its waker is still on the way
// to unpark it, even when a stray permit (legal: anyone may unpark a
// thread) wakes it early. Otherwise the waiter could return, end and be
// freed, and the waker's unpark would then write to a thread that is gone.
// Forced with the test hook: at CFA_STEP_WAKE_CLAIMED (the waker has taken
// on the wake-up and is about to unpark) the waker stops while a pest
// thread on the other processor unparks the waiter, and waits a bounded
// time for the waiter to return. The waiter must not: it returns only
// after the waker's last touch. One round per waker: a monitor's hand-off
// to a thread queued on entry, waitfor's hand-off to a waiting caller, the
// last stolen task of a fork-join group, a pthread mutex's unlock.
//
// RUN: %cc %s -I%S/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: monitor entry: the waiter stayed until its waker was done
// CHECK: waitfor caller: the waiter stayed until its waker was done
// CHECK: fork-join wait: the waiter stayed until its waker was done
// CHECK: pthread mutex: the waiter stayed until its waker was done
#include "check.h"
#include "../../monitor/include/mutex_call.h"

#include <cfa/forkjoin.h>
#include <cfa/test_hook.h>
#include <pthread.h>

static _Atomic int armed;     /* the next wake-up's window is the round's */
static _Atomic int in_window; /* the waker is stopped there */
static _Atomic int returned;  /* the waiter is past its wait */
static _Atomic int escaped;   /* ... and it got there while the waker was stopped */
static _Atomic int windows;   /* the round's wake-ups that stopped in the window */
static _Atomic int closed;    /* the waker has left the window */
static struct cfa_thread *waiter;

void cfa_test_hook(enum cfa_test_step step) {
    if (step != CFA_STEP_WAKE_CLAIMED || !atomic_exchange(&armed, 0))
        return;
    atomic_fetch_add(&windows, 1);
    atomic_store(&in_window, 1);
    double until = now_seconds() + 0.2;
    while (!atomic_load(&returned) && now_seconds() < until) {}
    if (atomic_load(&returned))
        atomic_store(&escaped, 1);
    atomic_store(&in_window, 0);
    atomic_store(&closed, 1);
}

static void pest_main(void *arg) {
    (void)arg;
    while (!atomic_load(&in_window)) cfa_yield();
    cfa_unpark(waiter); /* the waiter is alive: its waker is stopped */
}

/* A round: the scenario starts the pest, blocks `waiter`, arms the
 * window and wakes the waiter. */
static struct cfa_thread pest, other;
static void start_round(void) {
    atomic_store(&armed, 0); atomic_store(&in_window, 0);
    atomic_store(&returned, 0); atomic_store(&escaped, 0); atomic_store(&windows, 0);
    atomic_store(&closed, 0);
}
static void start_pest(void) { cfa_thread_start(&pest, pest_main, NULL, "Pest", 0); }
static void end_round(const char *what) {
    cfa_thread_destroy(&pest);
    while (!atomic_load(&closed)) cfa_yield(); /* a task's waker may still be in it */
    CHECK(atomic_load(&windows) == 1, "%s: the waker stopped in the window %d times, not once", what, atomic_load(&windows));
    CHECK(!atomic_load(&escaped), "%s: the waiter returned while its waker was still to unpark it", what);
    CHECK(atomic_load(&returned), "%s: the waiter never returned", what);
}

/* Starts `other` running `main`, as the round's waiter, and arms the
 * window once it is blocked. */
static void block_other(cfa_main_fn main, const char *name) {
    cfa_thread_start(&other, main, NULL, name, 0);
    waiter = &other;
    wait_until_blocked(&other);
    atomic_store(&armed, 1);
}

/* --- a monitor's entry hand-off (wake_all), and waitfor's to a caller
 * already waiting --- */
static struct cfa_monitor mon; /* all-zero: free */
static void enter(void) {
    MUTEX_CALL(enter, &mon);
    atomic_store(&returned, 1);
}
static void enter_main(void *arg) { (void)arg; enter(); }
static void hold_until_queued(void) {
    MUTEX_CALL(hold_until_queued, &mon);
    block_other(enter_main, "Enterer"); /* the leave below hands the monitor over */
}
static void accept_queued_call(void) {
    MUTEX_CALL(accept_queued_call, &mon);
    block_other(enter_main, "Caller");
    struct cfa_waitfor_clause c[] = { WAITFOR_CLAUSE(enter, &mon) };
    CHECK_EQ(cfa_waitfor(c, 1, -1, false), 0);
}

/* --- a fork-join group's last (stolen) task --- */
static _Atomic int task_started;
static void task(void *arg) {
    (void)arg;
    atomic_store(&task_started, 1);
    wait_until_blocked(waiter); /* main is parked in the group's wait */
    atomic_store(&armed, 1);
}

/* --- a pthread mutex's unlock --- */
static pthread_mutex_t pmutex = PTHREAD_MUTEX_INITIALIZER;
static void lock_main(void *arg) {
    (void)arg;
    CHECK_EQ(pthread_mutex_lock(&pmutex), 0);
    atomic_store(&returned, 1);
    CHECK_EQ(pthread_mutex_unlock(&pmutex), 0);
}

int main(int argc, char **argv) {
    long rounds = repeat_count(argc, argv);
    struct extra_procs procs;
    procs_start(&procs, 2);
    for (long r = 0; r < rounds; r++) {
        start_round();
        start_pest();
        hold_until_queued();
        cfa_thread_destroy(&other);
        end_round("monitor entry");

        start_round();
        start_pest();
        accept_queued_call();
        cfa_thread_destroy(&other);
        end_round("waitfor caller");

        start_round();
        waiter = cfa_active_thread();
        atomic_store(&task_started, 0);
        cfa_task_group g;
        cfa_task_group_init(&g);
        cfa_task_spawn(&g, task, NULL);
        /* A worker steals it: a sleeping one is woken while a processor
         * is free, so the pest starts only after. */
        while (!atomic_load(&task_started)) cfa_yield();
        start_pest();
        cfa_task_group_wait(&g);
        atomic_store(&returned, 1);
        end_round("fork-join wait");

        start_round();
        start_pest();
        CHECK_EQ(pthread_mutex_lock(&pmutex), 0);
        block_other(lock_main, "Locker");
        CHECK_EQ(pthread_mutex_unlock(&pmutex), 0);
        cfa_thread_destroy(&other);
        end_round("pthread mutex");
    }
    procs_stop(&procs);
    printf("monitor entry: the waiter stayed until its waker was done\n");
    printf("waitfor caller: the waiter stayed until its waker was done\n");
    printf("fork-join wait: the waiter stayed until its waker was done\n");
    printf("pthread mutex: the waiter stayed until its waker was done\n");
    return 0;
}
