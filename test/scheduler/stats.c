// CFA_STATS=1 prints the scheduler's counters at exit (runtime/src/
// stats.c): pushes (local, remote, external), pops (local, helped, stolen,
// idle search, help declined) and idle sleep (sleeps, notifications,
// eventfd writes), per cluster. The `run` mode does a known amount of
// scheduling on 2 processors (yields, thread starts, park/unpark) and
// stops its extra processor before exiting, so every counter has settled
// (a leaving processor's counts are kept); `verify` reads what `run`
// printed and the counters, and checks they agree:
//   pushes + yields alone (a yield with nothing else to run returns at
//   once, pushing nothing) >= yields + starts + unparks that found the
//   thread parked;
//   pops == pushes (every thread made ready was taken, none twice);
//   yield swaps <= local pushes and <= local pops (a yield that pushed
//   and popped under one lock is counted in both; how many there are
//   depends on how the yielders spread, and the runtime's own waits yield
//   too: test/scheduler/decision_clock.c counts them where it does not);
//   eventfd writes <= notifications + processor stops (idle_wake);
//   processors 1, lanes 2 at exit (one processor, SHARD_FACTOR lanes).
// Without CFA_STATS (or with CFA_STATS=0) nothing is printed.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env CFA_STATS=1 %timeout %t 1 run > %t.out 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: %timeout %t 1 verify %t.out %t.err | FileCheck %s --check-prefix=VERIFY
// RUN: env -u CFA_STATS %timeout %t 1 run 2>&1 | FileCheck %s --check-prefix=OFF
// RUN: env CFA_STATS=0 %timeout %t 1 run 2>&1 | FileCheck %s --check-prefix=OFF
// CHECK: cfa stats: cluster main: processors 1, lanes 2
// CHECK-NEXT: cfa stats:   push: local {{[0-9]+}}, remote {{[0-9]+}}, external {{[0-9]+}}; run next {{[0-9]+}}; yields alone {{[0-9]+}}, yield swaps {{[0-9]+}}
// CHECK-NEXT: cfa stats:   pop:  local {{[0-9]+}}, helped {{[0-9]+}}, stolen {{[0-9]+}}, idle search {{[0-9]+}}, left in grace {{[0-9]+}} (help declined {{[0-9]+}})
// CHECK-NEXT: cfa stats:   idle: sleeps {{[0-9]+}}, notifications {{[0-9]+}}, eventfd writes {{[0-9]+}}; wake-ups held {{[0-9]+}}, os yields {{[0-9]+}}, TSC reads {{[0-9]+}}
// VERIFY: counters agree with the 50000 yields, 55 starts and {{[0-9]+}} wake-ups performed
// OFF: yields 50000
// OFF-NOT: cfa stats
#include "sched_test.h"
#include "stats_read.h"

enum { YIELDERS = 50, YIELDS = 1000, RING = 5, ITERS = 2000, STOPS = 1 };

struct worker {
    long              wakeups;
    struct worker    *next;
    struct cfa_thread thread;
};

static _Atomic long made_ready; /* unparks that found the thread parked */

static void yielder_main(void *object) {
    (void)object;
    for (int i = 0; i < YIELDS; i++) cfa_yield();
}

static void ring_main(void *object) {
    struct worker *w = object;
    cfa_park();
    for (int k = 0; k < ITERS; k++) {
        /* ticket -1 means parked: this unpark will push it */
        if (atomic_load(&w->next->thread.ticket) < 0) atomic_fetch_add(&made_ready, 1);
        cfa_unpark(&w->next->thread);
        cfa_park();
    }
}

static void run(void) {
    struct extra_procs extra;
    procs_start(&extra, 1 + STOPS);
    static struct worker ys[YIELDERS], ring[RING];
    for (int i = 0; i < YIELDERS; i++) cfa_thread_start(&ys[i].thread, yielder_main, &ys[i], "Yielder", 0);
    for (int i = 0; i < RING; i++) {
        ring[i].next = &ring[(i + 1) % RING];
        cfa_thread_start(&ring[i].thread, ring_main, &ring[i], "Ring", 0);
    }
    for (int i = 0; i < RING; i++) cfa_unpark(&ring[i].thread);
    for (int i = 0; i < YIELDERS; i++) cfa_thread_join(&ys[i].thread);
    for (int i = 0; i < RING; i++) cfa_thread_join(&ring[i].thread);
    procs_stop(&extra);
    /* The main thread's joins also made it ready (when it was parked): not
     * counted here, so the pushes are only bounded below. */
    printf("yields %d\nstarts %d\nwakeups %ld\nstops %d\n", YIELDERS * YIELDS, YIELDERS + RING,
           atomic_load(&made_ready), STOPS);
}

static void verify(const char *out_path, const char *err_path) {
    char *out = stats_slurp(out_path), *err = stats_slurp(err_path);
    long yields = stats_find(out, "yields "), starts = stats_find(out, "starts "), wakeups = stats_find(out, "wakeups "),
         stops = stats_find(out, "stops ");
    long procs = stats_find(err, "processors "), lanes = stats_find(err, "lanes ");
    long push = stats_find(err, "push: local ") + stats_find(err, "remote ") + stats_find(err, "external ");
    long alone = stats_find(err, "yields alone "), swaps = stats_find(err, "yield swaps ");
    long push_local = stats_find(err, "push: local "), pop_local = stats_find(err, "pop:  local ");
    long pop = stats_find(err, "pop:  local ") + stats_find(err, "helped ") + stats_find(err, "stolen ") + stats_find(err, "idle search ");
    long notifications = stats_find(err, "notifications "), writes = stats_find(err, "eventfd writes ");
    CHECK_EQ(procs, 1);
    CHECK_EQ(lanes, 2);
    CHECK(push + alone >= yields + starts + wakeups, "%ld pushes and %ld yields alone for %ld yields, %ld starts, %ld wake-ups",
          push, alone, yields, starts, wakeups);
    CHECK(pop == push, "%ld pops for %ld pushes", pop, push);
    CHECK(swaps <= push_local && swaps <= pop_local, "%ld yield swaps, %ld local pushes, %ld local pops", swaps,
          push_local, pop_local);
    CHECK(writes <= notifications + stops, "%ld eventfd writes, %ld notifications, %ld stops", writes,
          notifications, stops);
    printf("counters agree with the %ld yields, %ld starts and %ld wake-ups performed\n", yields, starts, wakeups);
}

int main(int argc, char **argv) {
    CHECK(argc > 2, "usage: stats 1 run | stats 1 verify OUT ERR");
    if (!strcmp(argv[2], "run")) run();
    else if (!strcmp(argv[2], "verify") && argc > 4) verify(argv[3], argv[4]);
    else CHECK(0, "unknown mode %s", argv[2]);
    return 0;
}
