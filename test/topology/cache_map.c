// The cache-aware lane map at scale (thesis 4.4.3), by counting. Under a
// synthetic 256-PU topology (16 L3 instances of 16 PUs) a cluster of
// BIG_PROCS processors (192; 48 under TSan) runs yielders and park/unpark
// rings; at exit CFA_STATS prints how the lanes' cache hints spread over
// instances and how helping targets and steals fell. `verify` checks:
//   - the map: processor position i is in instance i / 16, so 192
//     processors cover 12 instances with exactly 32 lanes each (48: 3 x 32);
//   - nothing lost: every yielder made all its steps and every ring all
//     its wake-ups (exact), and pops == pushes;
//   - helping targets prefer the own instance: a uniform draw among the
//     382 remote lanes hits one of the 30 same-instance ones 7.9% of the
//     time; with CACHE_REDRAWS = 2 redraws, 1 - (1 - 30/382)^3 = 21.8%.
//     The check asks for more than 15% (uniform: under 10% with
//     overwhelming probability at the thousands of draws counted);
//   - steals prefer it the same way (checked the same, when there are
//     enough steals to count).
// Without the synthetic topology the same run reports one instance.
//
// RUN: %cc %s -I%S/include -I%S/../scheduler/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env HWLOC_SYNTHETIC="pack:2 numa:2 l3:4 core:8 pu:2" CFA_STATS=1 %timeout %t run > %t.out 2> %t.err
// RUN: %t verify %t.out %t.err | FileCheck %s
// RUN: env -u HWLOC_SYNTHETIC CFA_STATS=1 %timeout %t run 2>&1 | FileCheck %s --check-prefix=ONE
// CHECK: cache map: lanes spread as positions say; targets and steals prefer the own instance
// ONE: cfa stats:   cache: instances 1,
#include "big_cluster.h"
#include "stats_read.h"

enum { THREADS_PER_PROC = 4, STEPS = 1000, RING = 4, ITERS = 1000 };

struct worker {
    long              steps;
    struct worker    *next;
    struct cfa_thread thread;
};

static void yielder_main(void *object) {
    struct worker *w = object;
    for (int i = 0; i < STEPS; i++) {
        w->steps++;
        cfa_yield();
    }
}

static void ring_main(void *object) {
    struct worker *w = object;
    cfa_park();
    for (int k = 0; k < ITERS; k++) {
        w->steps++;
        cfa_unpark(&w->next->thread);
        cfa_park();
    }
}

static void run(void) {
    struct big_procs procs;
    big_start(&procs, BIG_PROCS);
    int yielders = BIG_PROCS * THREADS_PER_PROC / 2, ringers = BIG_PROCS * THREADS_PER_PROC / 2;
    ringers -= ringers % RING;
    struct worker *ws = zalloc_aligned((size_t)(yielders + ringers), sizeof *ws);
    for (int i = 0; i < yielders; i++)
        cfa_thread_start(&ws[i].thread, yielder_main, &ws[i], "Yielder", 0);
    for (int i = 0; i < ringers; i++) {
        struct worker *w = &ws[yielders + i];
        w->next = &ws[yielders + i - i % RING + (i % RING + 1) % RING];
        cfa_thread_start(&w->thread, ring_main, w, "Ring", 0);
    }
    /* One permit each from here, ITERS from the predecessor: ITERS + 1 parks. */
    for (int i = 0; i < ringers; i++)
        cfa_unpark(&ws[yielders + i].thread);
    long total = 0;
    for (int i = 0; i < yielders + ringers; i++) {
        cfa_thread_join(&ws[i].thread);
        total += ws[i].steps;
        CHECK(ws[i].steps == (i < yielders ? STEPS : ITERS), "worker %d made %ld steps", i, ws[i].steps);
    }
    printf("procs %d yielders %d ringers %d steps %ld\n", BIG_PROCS, yielders, ringers, total);
    fflush(stdout);
    /* The processors keep running: CFA_STATS prints the map at exit. */
}

static void verify(const char *out, const char *err) {
    long procs = stats_find(out, "procs ");
    CHECK_EQ(stats_find(err, "processors "), procs);
    long instances, min_lanes, max_lanes;
    big_expected_spread((int)procs, &instances, &min_lanes, &max_lanes);
    CHECK_EQ(stats_find(err, "cache: instances "), instances);
    CHECK_EQ(stats_find(err, "lanes per instance "), min_lanes);
    const char *dash = strstr(strstr(err, "lanes per instance "), "-");
    CHECK_EQ(strtol(dash + 1, NULL, 10), max_lanes);
    long pushes = stats_find(err, "push: local ") + stats_find(err, "remote ") + stats_find(err, "external ");
    long pops = stats_find(err, "pop:  local ") + stats_find(err, "helped ") + stats_find(err, "stolen ") +
                stats_find(err, "idle search ");
    long run_next = stats_find(err, "run next ");
    CHECK(pops == pushes, "pops %ld, pushes %ld (run next %ld)", pops, pushes, run_next);
    long t_same = stats_find(err, "help targets same "), t_other = stats_find(strstr(err, "help targets"), "other ");
    long s_same = stats_find(err, "steals same "), s_other = stats_find(strstr(err, "steals same"), "other ");
    fprintf(stderr, "targets same %ld other %ld (%.1f%%); steals same %ld other %ld (%.1f%%)\n", t_same, t_other,
            100.0 * t_same / (t_same + t_other + !(t_same + t_other)), s_same, s_other,
            100.0 * s_same / (s_same + s_other + !(s_same + s_other)));
    CHECK(t_same + t_other >= 1000, "only %ld helping targets drawn", t_same + t_other);
    CHECK(t_same * 100 > 15 * (t_same + t_other), "targets in the own instance: %ld of %ld", t_same,
          t_same + t_other);
    if (s_same + s_other >= 1000)
        CHECK(s_same * 100 > 15 * (s_same + s_other), "steals from the own instance: %ld of %ld", s_same,
              s_same + s_other);
    printf("cache map: lanes spread as positions say; targets and steals prefer the own instance\n");
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "run") == 0) {
        run();
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "verify") == 0) {
        verify(stats_slurp(argv[2]), stats_slurp(argv[3]));
        return 0;
    }
    fprintf(stderr, "usage: %s run | verify OUT ERR\n", argv[0]);
    return 2;
}
