// The wake-up race: two threads ping-pong through cfa_park/cfa_unpark,
// EXCHANGES times, each on its own processor, so that every exchange
// races a wake-up against a processor going to sleep (thesis 6.4: the
// idle processor registers, searches, commits SEARCH -> SLEEP; the
// notifier makes the thread visible, then takes `first` and flips the
// benaphore). A wake-up lost anywhere in that handshake hangs the test
// (the timeout); a wake-up delivered twice breaks the strict alternation.
//
//   clusters  thread A on cluster X, thread B on cluster Y, one processor
//             each: every unpark is a push from outside the target
//             cluster, onto a processor that is idle (spinning or asleep);
//   shared    both threads on the main cluster with 2 processors, where
//             the partner may run on either processor.
//
// Usage: wakeup_race REPEAT MODE EXCHANGES
//
// Counts: `shared` does 10 million exchanges (about 2 s on the 2-core
// development VM: the partner mostly runs on the same processor, and the
// other one sleeps and wakes some 20,000 times). `clusters` costs about
// 20 us an exchange there (nearly every one goes through the eventfd sleep
// and wake), so 10 million would take over 3 minutes: it does 1 million
// (about 20 s). Under the sanitizers, a tenth of each.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %if sanitizer %{ %timeout %t %stress clusters 100000 %} %else %{ %timeout %t %stress clusters 1000000 %} | FileCheck %s --check-prefix=CLUSTERS
// RUN: %if sanitizer %{ %timeout %t %stress shared 1000000 %} %else %{ %timeout %t %stress shared 10000000 %} | FileCheck %s --check-prefix=SHARED
// CLUSTERS: wake-up race clusters: {{[0-9]+}} exchanges in strict alternation ok
// SHARED: wake-up race shared: {{[0-9]+}} exchanges in strict alternation ok
#include "sched_test.h"

struct player {
    int                 id;
    long                rounds;
    struct player      *partner;
    struct cfa_cluster *home;     /* cluster to migrate to first, or NULL */
    struct cfa_thread   thread;
};

static _Atomic int turn;

static void player_main(void *object) {
    struct player *p = object;
    if (p->home) cfa_migrate(p->home);
    cfa_park(); /* start gate */
    for (long i = 0; i < p->rounds; i++) {
        if (p->id == 1 || i > 0) cfa_park();
        CHECK(atomic_load(&turn) == p->id, "player %d woke out of turn in round %ld", p->id, i);
        atomic_store(&turn, 1 - p->id);
        cfa_unpark(&p->partner->thread);
    }
    if (p->id == 0) cfa_park(); /* the partner's last unpark */
}

static void run(bool clusters, long exchanges) {
    struct cfa_cluster x = { .name = "X" }, y = { .name = "Y" };
    struct cfa_processor px = { .cluster = &x }, py = { .cluster = &y };
    struct extra_procs extra = { 0 };
    if (clusters) {
        cfa_cluster_init(&x);
        cfa_cluster_init(&y);
        cfa_processor_start(&px);
        cfa_processor_start(&py);
    } else {
        procs_start(&extra, 2);
    }
    struct player pl[2];
    memset(pl, 0, sizeof pl);
    atomic_store(&turn, 0);
    for (int i = 0; i < 2; i++) {
        pl[i].id = i;
        pl[i].rounds = exchanges / 2;
        pl[i].partner = &pl[1 - i];
        pl[i].home = clusters ? (i == 0 ? &x : &y) : NULL;
    }
    for (int i = 0; i < 2; i++) cfa_thread_start(&pl[i].thread, player_main, &pl[i], "Player", 0);
    /* Open the gate once both have parked on their clusters (a permit
     * given earlier would be kept: the gate only orders the start). */
    for (int i = 0; i < 2; i++) cfa_unpark(&pl[i].thread);
    for (int i = 0; i < 2; i++) cfa_thread_join(&pl[i].thread);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(atomic_load(&pl[i].thread.ticket), 0);
        cfa_thread_destroy(&pl[i].thread);
    }
    CHECK_EQ(atomic_load(&turn), 0);
    if (clusters) {
        cfa_processor_stop(&px);
        cfa_processor_stop(&py);
        cfa_cluster_destroy(&x);
        cfa_cluster_destroy(&y);
    } else {
        procs_stop(&extra);
    }
    REPORT("wake-up race %s: %ld exchanges in strict alternation ok\n", clusters ? "clusters" : "shared",
           2 * (exchanges / 2));
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    CHECK(argc > 3 && (!strcmp(argv[2], "clusters") || !strcmp(argv[2], "shared")),
          "usage: wakeup_race REPEAT clusters|shared EXCHANGES");
    long exchanges = arg_long(argc, argv, 3, 0);
    CHECK(exchanges >= 2);
    for (rep_index = 0; rep_index < reps; rep_index++) run(!strcmp(argv[2], "clusters"), exchanges);
    return 0;
}
