/* big_cluster.h: helpers of the topology suite (test/topology): a cluster
 * of up to 192 processors on the machine's few CPUs, under the synthetic
 * topology the RUN lines give hwloc (HWLOC_SYNTHETIC; runtime/src/
 * topology.h: processor position i simulates the i-th PU).
 *
 * The suite's topology, in every RUN line: 2 packages x 2 NUMA nodes x 4 L3
 * x 8 cores x 2 PUs = 256 PUs, 16 L3 instances of 16 PUs each, so
 * processor position i is in L3 instance i / 16. Under TSan (a kernel
 * thread costs it far more) the tests run fewer processors: BIG_PROCS.
 *
 * The load (struct big_load): yielders that each make a fixed number of
 * steps, and park/unpark rings whose threads each make a fixed number of
 * wake-ups; a step that runs while its thread is already running one, or
 * a total that is not exact, is a lost or doubled thread.
 */
#ifndef CFA_TEST_BIG_CLUSTER_H
#define CFA_TEST_BIG_CLUSTER_H

#include "sched_test.h"
#include "stats_read.h"

enum { PUS_PER_L3 = 16 };

#if defined(__has_feature)
#  if __has_feature(thread_sanitizer)
#    define BIG_UNDER_TSAN 1
#  endif
#endif
#ifdef BIG_UNDER_TSAN
enum { BIG_PROCS = 48 };
#else
enum { BIG_PROCS = 192 };
#endif

/* Processors beyond the main one, started and stopped in order. */
struct big_procs {
    int                   count;
    struct cfa_processor *p;
};

static inline void big_start(struct big_procs *b, int total) {
    b->p = zalloc_aligned((size_t)total, sizeof *b->p);
    b->count = 0;
    for (int i = 1; i < total; i++)
        cfa_processor_start(&b->p[b->count++]);
    CHECK_EQ(cfa_cluster_processor_count(cfa_current_cluster()), total);
}

static inline void big_stop(struct big_procs *b) {
    while (b->count > 0)
        cfa_processor_stop(&b->p[--b->count]);
    free(b->p);
    b->p = NULL;
}

/* L3 instances that `procs` processors at positions 0..procs-1 occupy, and
 * the fewest and most lanes (2 per processor) one holds. */
static inline void big_expected_spread(int procs, long *instances, long *min_lanes, long *max_lanes) {
    *instances = (procs + PUS_PER_L3 - 1) / PUS_PER_L3;
    *max_lanes = 2L * (procs < PUS_PER_L3 ? procs : PUS_PER_L3);
    *min_lanes = procs % PUS_PER_L3 ? 2L * (procs % PUS_PER_L3) : *max_lanes;
}

/* ---- the load -------------------------------------------------------- */

struct big_worker {
    int                index;
    long               steps;
    _Atomic int        in_step;
    struct big_worker *next;      /* ring successor */
    struct big_load   *load;
    struct cfa_thread  thread;
};

struct big_load {
    int                yielders, ringers, ring, steps;
    _Atomic int       *hold;      /* if set, yielders halfway keep yielding while *hold */
    struct big_worker *w;
};

static inline void big_step(struct big_worker *w) {
    CHECK(atomic_exchange(&w->in_step, 1) == 0, "worker %d runs twice at once", w->index);
    w->steps++;
    atomic_store(&w->in_step, 0);
}

static inline void big_yielder_main(void *object) {
    struct big_worker *w = object;
    for (int i = 0; i < w->load->steps; i++) {
        big_step(w);
        cfa_yield();
        if (w->load->hold && i == w->load->steps / 2)
            while (atomic_load(w->load->hold)) cfa_yield();
    }
}

/* One permit from big_load_start, `steps` from the predecessor: steps + 1 parks. */
static inline void big_ring_main(void *object) {
    struct big_worker *w = object;
    cfa_park();
    for (int k = 0; k < w->load->steps; k++) {
        big_step(w);
        cfa_unpark(&w->next->thread);
        cfa_park();
    }
}

/* Starts `yielders` yielders and `ringers` ring threads (rounded down to
 * whole rings of `ring`), each making `steps` steps. */
static inline void big_load_start(struct big_load *l, int yielders, int ringers, int ring, int steps,
                                  _Atomic int *hold) {
    *l = (struct big_load){ yielders, ringers - ringers % ring, ring, steps, hold, NULL };
    int n = l->yielders + l->ringers;
    l->w = zalloc_aligned((size_t)n, sizeof *l->w);
    for (int i = 0; i < n; i++) {
        struct big_worker *w = &l->w[i];
        w->index = i;
        w->load = l;
        if (i < l->yielders) {
            cfa_thread_start(&w->thread, big_yielder_main, w, "Yielder", 0);
        } else {
            int base = i - (i - l->yielders) % ring;
            w->next = &l->w[base + (i - base + 1) % ring];
            cfa_thread_start(&w->thread, big_ring_main, w, "Ring", 0);
        }
    }
    for (int i = l->yielders; i < n; i++)
        cfa_unpark(&l->w[i].thread);
}

/* Joins every worker and checks each made exactly its steps and left no
 * permit behind; returns the steps made in all. */
static inline long big_load_finish(struct big_load *l) {
    long total = 0;
    for (int i = 0; i < l->yielders + l->ringers; i++) {
        struct big_worker *w = &l->w[i];
        cfa_thread_join(&w->thread);
        CHECK(w->steps == l->steps, "worker %d made %ld steps", i, w->steps);
        CHECK_EQ(atomic_load(&w->thread.ticket), 0);
        cfa_thread_destroy(&w->thread);
        total += w->steps;
    }
    free(l->w);
    l->w = NULL;
    return total;
}

/* main() of a test that runs once with CFA_STATS on (`run`) and then
 * checks what it printed (`verify OUT ERR`). */
static inline int big_run_or_verify(int argc, char **argv, void (*run)(void),
                                    void (*verify)(const char *out, const char *err)) {
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

#endif
