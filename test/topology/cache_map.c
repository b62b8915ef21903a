// The cache-aware lane map at scale (thesis 4.4.3), by counting. Under a
// synthetic 256-PU topology (16 L3 instances of 16 PUs) a cluster of
// BIG_PROCS processors (192; 48 under TSan) runs yielders and park/unpark
// rings; at exit CFA_STATS prints how the lanes' cache hints spread over
// instances and how helping targets and steals fell. `verify` checks:
//   - the map: processor position i is in instance i / 16, so 192
//     processors cover 12 instances with exactly 32 lanes each (48: 3 x 32);
//   - nothing lost: every yielder made all its steps and every ring all
//     its wake-ups (exact), and pops == pushes;
//   - helping targets prefer the own instance: a target is a random lane
//     of another processor, redrawn up to CACHE_REDRAWS = 2 times while in
//     another instance. With p = same-instance remote lanes / remote lanes
//     (30/382 = 7.9% at 192 processors, 30/94 = 31.9% at 48) a uniform draw
//     lands in the own instance with probability p, the redraws make it
//     1 - (1 - p)^3 (21.8%, 68.6%). The check wants more than halfway
//     between the two, over at least MIN_DRAWS targets (5 standard
//     deviations or more from either side);
//   - steal victims are drawn the same way, and checked the same (every
//     draw counts, successful or not: a run steals only about a hundred
//     threads, but draws many thousands of victims).
// Without the synthetic topology the same run reports one instance.
//
// RUN: %cc %s -I%S/include -I%S/../scheduler/include -I%S/../runtime/include -o %t %cfa-link
// RUN: env HWLOC_SYNTHETIC="pack:2 numa:2 l3:4 core:8 pu:2" CFA_STATS=1 %timeout %t run > %t.out 2> %t.err
// RUN: %t verify %t.out %t.err | FileCheck %s
// RUN: env -u HWLOC_SYNTHETIC CFA_STATS=1 %timeout %t run 2>&1 | FileCheck %s --check-prefix=ONE
// CHECK: cache map: lanes spread as positions say; targets and steals prefer the own instance
// ONE: cfa stats:   cache: instances 1,
#include "big_cluster.h"

enum { THREADS_PER_PROC = 4, STEPS = 1000, RING = 4, MIN_DRAWS = BIG_PROCS >= 192 ? 1000 : 400 };

/* Whether `same` of `same + other` draws beat halfway between a uniform
 * draw and one with CACHE_REDRAWS = 2 redraws, for `procs` processors. */
static bool prefers_own_instance(long procs, long same, long other) {
    double own = 2.0 * ((procs < PUS_PER_L3 ? procs : PUS_PER_L3) - 1), remote = 2.0 * (procs - 1);
    double p = own / remote, redrawn = 1 - (1 - p) * (1 - p) * (1 - p);
    double fraction = (double)same / (double)(same + other);
    fprintf(stderr, "own instance %ld of %ld (%.1f%%); uniform %.1f%%, with redraws %.1f%%\n", same, same + other,
            100 * fraction, 100 * p, 100 * redrawn);
    return fraction > (p + redrawn) / 2;
}

static void run(void) {
    struct big_procs procs;
    big_start(&procs, BIG_PROCS);
    struct big_load load;
    int threads = BIG_PROCS * THREADS_PER_PROC;
    big_load_start(&load, threads / 2, threads / 2, RING, STEPS, NULL);
    long total = big_load_finish(&load);
    printf("procs %d yielders %d ringers %d steps %ld\n", BIG_PROCS, load.yielders, load.ringers, total);
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
    long v_same = stats_find(err, "steal victims same "), v_other = stats_find(strstr(err, "steal victims"), "other ");
    CHECK(t_same + t_other >= MIN_DRAWS, "only %ld helping targets drawn", t_same + t_other);
    CHECK(prefers_own_instance(procs, t_same, t_other), "helping targets do not prefer the own instance");
    CHECK(v_same + v_other >= MIN_DRAWS, "only %ld steal victims drawn", v_same + v_other);
    CHECK(prefers_own_instance(procs, v_same, v_other), "steal victims do not prefer the own instance");
    printf("cache map: lanes spread as positions say; targets and steals prefer the own instance\n");
}

int main(int argc, char **argv) { return big_run_or_verify(argc, argv, run, verify); }
