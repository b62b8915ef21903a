// Who wakes a sleeping fork-join worker (runtime/src/forkjoin.c, "Spawn"
// and "Idle processor"; docs/forkjoin.md, "Design"):
//   - a spawn wakes one only if a processor is idle to run it: on one
//     processor, rounds of spawn, wait and yields (which let the workers
//     run out of work and sleep) wake no worker, and every task runs on
//     its spawner;
//   - a processor that goes idle while a task waits in a deque wakes one:
//     on two processors, with a thread spinning on the second, the
//     workers sleep, the main thread spawns a task (no processor is idle:
//     no wake-up) and, without waiting for it, lets the spinner end; the
//     freed processor wakes a worker, which steals and runs the task while
//     the main thread still spins (20 s without it fails);
//   - a processor a notifier takes from the idle list's `first` looks
//     again on leaving idle (I5): on three processors, two asleep, a
//     kernel thread makes a thread ready, and the test hook holds it right
//     after it took the top sleeper from `first`; meanwhile the main
//     thread spawns a task (`first` is NULL: no wake-up), then spins. The
//     woken processor runs the new thread, which spins too; only its
//     pass-on can wake a worker for the other sleeping processor.
// Mode `run` (with CFA_STATS=1) checks the tasks; mode `verify` checks the
// wake-up counts the run printed at exit (not for three processors: the
// count of sleeping processors the run waits for can reach 2 while one is
// on its way back, and on a loaded machine a processor can register as
// idle again before the hold starts, so the spawn may wake the worker; the
// task must run on a worker either way).
//
// RUN: %cc %s -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t 1 run > %t.out 2> %t.err
// RUN: %timeout %t 1 verify %t.out %t.err | FileCheck %s --check-prefix=ONE
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t 2 run > %t.out 2> %t.err
// RUN: %timeout %t 2 verify %t.out %t.err | FileCheck %s --check-prefix=TWO
// RUN: env CFA_PREEMPTION_MS=0 %timeout %t 3 run | FileCheck %s --check-prefix=THREE
// ONE: 1 processor: 200 tasks ran on their spawner; no worker woken by a spawn
// TWO: 2 processors: the task ran on a worker while its spawner spun; woken by an idle processor, not by the spawn
// THREE: 3 processors: the task spawned while a notifier held `first` ran on a worker
#include "check.h"
#include "stats_read.h"
#include "task.h"

#include <cfa/forkjoin.h>
#include <cfa/kernel_thread.h>
#include <cfa/test_hook.h>
#include <stdatomic.h>

enum { ROUNDS = 200, YIELDS = 100, DEADLINE_S = 20 };

static struct cfa_thread *_Atomic ran_on;
static _Atomic int started;

static void record_runner(void *arg) {
    (void)arg;
    atomic_store(&ran_on, cfa_active_thread());
    atomic_store(&started, 1);
}

static void nothing(void *arg) { (void)arg; }

/* Gives the workers turns to find no work and sleep (at most two rounds
 * each, FJ_IDLE_ROUNDS). */
static void let_workers_sleep(void) {
    for (int i = 0; i < YIELDS; i++)
        cfa_yield();
}

/* The first spawn starts the workers: ready, not asleep. */
static void start_workers_then_let_them_sleep(void) {
    cfa_task_group g;
    cfa_task_group_init(&g);
    cfa_task_spawn(&g, nothing, NULL);
    cfa_task_group_wait(&g);
    let_workers_sleep();
}

static void one_processor(void) {
    struct cfa_thread *self = cfa_active_thread();
    start_workers_then_let_them_sleep();
    for (int r = 0; r < ROUNDS; r++) {
        cfa_task_group g;
        cfa_task_group_init(&g);
        atomic_store(&ran_on, NULL);
        cfa_task_spawn(&g, record_runner, NULL);
        cfa_yield(); /* a woken worker would run here and steal the task */
        cfa_task_group_wait(&g);
        CHECK(atomic_load(&ran_on) == self, "round %d: the task ran on another thread", r);
        let_workers_sleep();
    }
    printf("1 processor: %d tasks ran on their spawner\n", ROUNDS);
}

static _Atomic int spinner_running, spinner_release;

static void spin_until_released(void *arg) {
    (void)arg;
    atomic_store(&spinner_running, 1);
    while (!atomic_load(&spinner_release))
        __builtin_ia32_pause();
}

static void two_processors(void) {
    struct extra_procs extra;
    procs_start(&extra, 2);
    struct task spinner;
    task_start(&spinner, spin_until_released, NULL, "spinner");
    while (!atomic_load(&spinner_running))
        cfa_yield();
    /* The spinner holds one processor, this thread the other: the workers
     * get this one only at its yields. */
    start_workers_then_let_them_sleep();

    struct cfa_thread *self = cfa_active_thread();
    cfa_task_group g;
    cfa_task_group_init(&g);
    cfa_task_spawn(&g, record_runner, NULL); /* no processor idle: wakes nobody */
    atomic_store(&spinner_release, 1);       /* its processor goes idle */
    double deadline = now_seconds() + DEADLINE_S;
    while (!atomic_load(&started))
        CHECK(now_seconds() < deadline, "the task did not start in %d s: no idle processor woke a worker", DEADLINE_S);
    cfa_task_group_wait(&g);
    CHECK(atomic_load(&ran_on) != self, "the task ran on its spawner");
    cfa_thread_join(&spinner.thread);
    procs_stop(&extra);
    printf("2 processors: the task ran on a worker while its spawner spun\n");
}

/* ---- three processors: a spawn while a notifier holds `first` ---------- */

static _Atomic int hold_armed, holding, spawned, asleep;
static _Thread_local int slept;

/* Counts the processors asleep; once armed, holds the first notifier that
 * takes a sleeper from `first` until the task is spawned, and meanwhile
 * keeps any processor woken for another reason from registering as idle
 * again (which would publish `first` and let the spawn wake a worker). */
void cfa_test_hook(enum cfa_test_step step) {
    if (step == CFA_STEP_POLLED && atomic_load(&holding)) {
        while (!atomic_load(&spawned))
            __builtin_ia32_pause();
        return;
    }
    if (step == CFA_STEP_SLEEPING) {
        slept = 1;
        atomic_fetch_add(&asleep, 1);
    } else if (step == CFA_STEP_WOKEN && slept) {
        slept = 0;
        atomic_fetch_sub(&asleep, 1);
    } else if (step == CFA_STEP_NOTIFY_TOOK && atomic_exchange(&hold_armed, 0)) {
        atomic_store(&holding, 1);
        while (!atomic_load(&spawned))
            __builtin_ia32_pause();
    }
}

static struct cfa_thread *_Atomic to_wake;

static void *wake_from_outside(void *arg) {
    (void)arg;
    cfa_unpark(atomic_load(&to_wake));
    return NULL;
}

/* Parks until made ready, then holds its processor until the task started. */
static void park_then_spin(void *arg) {
    (void)arg;
    cfa_park();
    double deadline = now_seconds() + DEADLINE_S;
    while (!atomic_load(&started) && now_seconds() < deadline)
        __builtin_ia32_pause();
}

static void three_processors(void) {
    struct extra_procs extra;
    procs_start(&extra, 3);
    struct task sleeper;
    task_start(&sleeper, park_then_spin, NULL, "sleeper");
    wait_until_blocked(&sleeper.thread);
    atomic_store(&to_wake, &sleeper.thread);
    cfa_task_group g;
    cfa_task_group_init(&g);
    cfa_task_spawn(&g, nothing, NULL); /* starts the workers */
    cfa_task_group_wait(&g);
    double deadline = now_seconds() + DEADLINE_S;
    while (atomic_load(&asleep) < 2) /* the other two processors, their workers before them */
        CHECK(now_seconds() < deadline, "the idle processors did not sleep in %d s", DEADLINE_S);

    struct cfa_thread *self = cfa_active_thread();
    atomic_store(&hold_armed, 1);
    pthread_t kt;
    CHECK_EQ(cfa_kernel_thread_create(&kt, NULL, wake_from_outside, NULL), 0);
    while (!atomic_load(&holding))
        CHECK(now_seconds() < deadline, "no notifier took `first` in %d s", DEADLINE_S);
    cfa_task_spawn(&g, record_runner, NULL); /* `first` is NULL: wakes nobody */
    atomic_store(&spawned, 1);
    deadline = now_seconds() + DEADLINE_S;
    while (!atomic_load(&started))
        CHECK(now_seconds() < deadline, "the task did not start in %d s: the pass-on woke no worker", DEADLINE_S);
    cfa_task_group_wait(&g);
    CHECK(atomic_load(&ran_on) != self, "the task ran on its spawner");
    CHECK_EQ(cfa_kernel_thread_join(kt, NULL), 0);
    cfa_thread_join(&sleeper.thread);
    procs_stop(&extra);
    printf("3 processors: the task spawned while a notifier held `first` ran on a worker\n");
}

static void verify(long processors, const char *out_path, const char *err_path) {
    char *out = stats_slurp(out_path), *err = stats_slurp(err_path);
    CHECK(strstr(out, "processor") != NULL, "the run did not finish: '%s'", out);
    long by_spawns = stats_find(err, "workers woken by spawns "), by_idle = stats_find(err, "by idle processors ");
    if (processors == 1) {
        CHECK_EQ(by_spawns, 0);
        printf("1 processor: %d tasks ran on their spawner; no worker woken by a spawn\n", ROUNDS);
    } else {
        CHECK_EQ(by_spawns, 0);
        CHECK(by_idle >= 1, "woken by idle processors: %ld", by_idle);
        printf("2 processors: the task ran on a worker while its spawner spun; woken by an idle processor, "
               "not by the spawn\n");
    }
}

int main(int argc, char **argv) {
    long processors = arg_long(argc, argv, 1, 1);
    CHECK(argc >= 3, "usage: %s 1|2 run | verify OUT ERR", argv[0]);
    if (strcmp(argv[2], "verify") == 0) {
        CHECK(argc == 5, "verify wants the run's stdout and stderr files");
        verify(processors, argv[3], argv[4]);
    } else if (processors == 1) {
        one_processor();
    } else if (processors == 2) {
        two_processors();
    } else {
        three_processors();
    }
    return 0;
}
