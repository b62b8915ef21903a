// Idle sleep with BIG_PROCS - 1 idle processors (191; 47 under TSan), on a
// synthetic 256-PU topology (thesis 6.2-6.4 at scale). With that many
// sleepers every push finds one to wake: the idle stack, the benaphores
// and the eventfds are exercised by every hand-off.
//   ping-pong  the main thread and one partner hand a token back and forth
//              by park/unpark, PINGS times (each unpark may wake a sleeper
//              that steals the partner);
//   bursts     BURSTS times, the main thread starts BIG_PROCS - 1 threads
//              at once (a push per thread, a wake-up each while sleepers
//              remain), each marks its slot, and joins them all.
// `verify` checks, exactly: every ping answered once, every burst thread
// ran once (its slot is 1, not 0 or 2); from CFA_STATS: pops == pushes (no
// thread lost or taken twice), eventfd writes <= notifications +
// processor stops (a notifier writes only the sleeper it flipped from
// SLEEP), and processors sleep at all (sleeps > 0).
//
// RUN: %cc %s -I%S/include -I%S/../scheduler/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env HWLOC_SYNTHETIC="pack:2 numa:2 l3:4 core:8 pu:2" CFA_STATS=1 %timeout %t run > %t.out 2> %t.err
// RUN: %t verify %t.out %t.err | FileCheck %s
// CHECK: idle: {{191|47}} idle processors: {{[0-9]+}} pings, {{[0-9]+}} bursts of {{191|47}} threads exact; books balance
#include "big_cluster.h"

enum { PINGS = 2000, BURSTS = 10 };

static struct cfa_thread partner;
static struct cfa_thread *main_thread;
static long answered;

static void partner_main(void *object) {
    (void)object;
    for (int i = 0; i < PINGS; i++) {
        cfa_park();
        answered++;
        cfa_unpark(main_thread);
    }
}

struct marker {
    _Atomic int       runs;
    struct cfa_thread thread;
};

static void marker_main(void *object) {
    struct marker *m = object;
    atomic_fetch_add(&m->runs, 1);
}

static void run(void) {
    struct big_procs procs;
    big_start(&procs, BIG_PROCS);
    main_thread = cfa_this_thread();
    cfa_thread_start(&partner, partner_main, NULL, "Partner", 0);
    for (int i = 0; i < PINGS; i++) {
        cfa_unpark(&partner);
        cfa_park();
        CHECK(answered == i + 1, "ping %d answered %ld times", i, answered);
    }
    cfa_thread_join(&partner);
    int n = BIG_PROCS - 1;
    struct marker *ms = zalloc_aligned((size_t)n, sizeof *ms);
    for (int b = 0; b < BURSTS; b++) {
        for (int i = 0; i < n; i++) {
            atomic_store(&ms[i].runs, 0);
            cfa_thread_start(&ms[i].thread, marker_main, &ms[i], "Marker", 0);
        }
        for (int i = 0; i < n; i++) {
            cfa_thread_join(&ms[i].thread);
            CHECK(atomic_load(&ms[i].runs) == 1, "burst %d thread %d ran %d times", b, i, atomic_load(&ms[i].runs));
            cfa_thread_destroy(&ms[i].thread);
        }
    }
    big_stop(&procs);
    printf("idle processors %d pings %ld bursts %d stops %d\n", n, answered, BURSTS, n);
}

static void verify(const char *out, const char *err) {
    long idle = stats_find(out, "idle processors "), pings = stats_find(out, "pings ");
    long bursts = stats_find(out, "bursts "), stops = stats_find(out, "stops ");
    CHECK_EQ(pings, PINGS);
    long pushes = stats_find(err, "push: local ") + stats_find(err, "remote ") + stats_find(err, "external ");
    long pops = stats_find(err, "pop:  local ") + stats_find(err, "helped ") + stats_find(err, "stolen ") +
                stats_find(err, "idle search ");
    CHECK(pops == pushes, "pops %ld, pushes %ld", pops, pushes);
    long sleeps = stats_find(err, "sleeps "), notifications = stats_find(err, "notifications ");
    long writes = stats_find(err, "eventfd writes ");
    CHECK(writes <= notifications + stops, "eventfd writes %ld, notifications %ld, stops %ld", writes,
          notifications, stops);
    CHECK(sleeps > 0, "no processor slept");
    printf("idle: %ld idle processors: %ld pings, %ld bursts of %ld threads exact; books balance\n", idle, pings,
           bursts, idle);
}

int main(int argc, char **argv) { return big_run_or_verify(argc, argv, run, verify); }
