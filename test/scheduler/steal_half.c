// A steal takes a backlog in halves (runtime/src/ready_queue.c,
// lane_steal; docs/scheduler.md, "Pop", step 3): the thief runs the
// victim lane's head and moves half of the threads behind it to its own
// lanes (at most 8 at a time), so a backlog of N threads moves in about
// N / 9 steals or fewer, not N.
// Two processors, preemption off, and the main thread never yields, so
// every other thread runs on the second processor. First a blocker thread
// occupies it (one steal); while it spins, the main thread starts THREADS
// threads, which wait in its processor's lanes; then it releases the
// blocker and spins until all have run. The whole backlog is in place
// before the second processor looks for work, so the count does not
// depend on how creation and stealing interleave. Counted from CFA_STATS:
// every thread ran, and the other processor took them with at most
// THREADS / 3 steals (13-15 with halves, 60-65 one by one); the rest were
// its own lanes' pops, an idle search's or helping steps'.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 CFA_PREEMPTION_MS=0 %timeout %t run > %t.out 2> %t.err
// RUN: %timeout %t verify %t.err | FileCheck %s
// CHECK: 64 threads ran on the other processor in at most 21 steals
#include "check.h"
#include "stats_read.h"
#include "task.h"

enum { THREADS = 64 };

static _Atomic int ran;

static void count_run(void *arg) {
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

enum { BLOCKER_STARTING, BLOCKER_RUNNING, BLOCKER_RELEASED };
static _Atomic int blocker;

/* Keeps the second processor busy, without yielding, until released. */
static void block_processor(void *arg) {
    (void)arg;
    atomic_store(&blocker, BLOCKER_RUNNING);
    while (atomic_load(&blocker) != BLOCKER_RELEASED) {}
}

static void run(void) {
    struct extra_procs procs;
    procs_start(&procs, 2);
    static struct task hold, tasks[THREADS];
    task_start(&hold, block_processor, NULL, "Blocker");
    double until = now_seconds() + 20;
    while (atomic_load(&blocker) != BLOCKER_RUNNING)
        CHECK(now_seconds() < until, "the blocker did not start in 20 s");
    for (int i = 0; i < THREADS; i++)
        task_start(&tasks[i], count_run, NULL, "Counter");
    atomic_store(&blocker, BLOCKER_RELEASED);
    until = now_seconds() + 20;
    while (atomic_load(&ran) < THREADS)
        CHECK(now_seconds() < until, "%d of %d threads ran in 20 s", atomic_load(&ran), THREADS);
    cfa_thread_join(&hold.thread);
    for (int i = 0; i < THREADS; i++)
        cfa_thread_join(&tasks[i].thread);
    procs_stop(&procs);
}

static void verify(const char *err_path) {
    char *err = stats_slurp(err_path);
    long stolen = stats_find(err, "stolen ");
    CHECK(stolen >= 1 && stolen <= THREADS / 3, "%ld steals for %d threads", stolen, THREADS);
    printf("%d threads ran on the other processor in at most %d steals\n", THREADS, THREADS / 3);
}

int main(int argc, char **argv) {
    CHECK(argc > 1, "usage: steal_half run | steal_half verify ERR");
    if (!strcmp(argv[1], "run"))
        run();
    else if (!strcmp(argv[1], "verify") && argc > 2)
        verify(argv[2]);
    else
        CHECK(false, "unknown mode %s", argv[1]);
    return 0;
}
