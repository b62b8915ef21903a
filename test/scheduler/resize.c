// Resizing under load (thesis 6.1: processors join and leave a cluster
// under the writer side of the readers-writer lock, and the lanes are
// rebuilt without losing a thread). Two resizer threads each add and
// remove their own processors at random, 500 operations each (1,000
// resizes), so the cluster goes between 1 and 7 processors and two
// writers contend; a resizer yields between operations, so it often stops
// the very processor it runs on. Meanwhile 64 threads yield and 8 rings of
// 5 threads pass park/unpark wake-ups (pushes that race the resizes).
//
// Invariants, exact: every yielder performs STEPS steps and every ring
// thread ITERS wake-ups (a thread lost in a removed processor's lanes
// hangs: the timeout; one queued twice runs twice: the in-step flags and
// the counts); no permit is left over; the processor count is within its
// bounds after every resize and back to 1 at the end.
//
// The readers' flags are taken without a locked instruction when the
// kernel has membarrier (runtime/src/resize_lock.h, steps R1-W3); the
// second run forces the exchange that kernels without it use.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// RUN: %timeout %t %stress symmetric | FileCheck %s
// CHECK: resize: 1000 resizes (1 to 7 processors), 64 yielders x 3000 steps, 8 rings x 5 x 3000 wake-ups exact
#include "sched_test.h"

#include <cfa/testing.h>

enum { YIELDERS = 64, STEPS = 3000, RINGS = 8, RING = 5, ITERS = 3000,
       RESIZERS = 2, OPS = 500, MAX_OWN = 3 };

struct worker {
    int               index;
    long              steps;
    _Atomic long      sent;
    _Atomic int       in_step;
    struct worker    *next, *prev; /* ring workers */
    struct cfa_thread thread;
};

struct resizer {
    int                  index;
    int                  own, max_own, adds, removes;
    struct cfa_processor procs[MAX_OWN];
    struct cfa_thread    thread;
};

static _Atomic int resizing;

static void step(struct worker *w) {
    CHECK(atomic_exchange(&w->in_step, 1) == 0, "worker %d runs twice at once", w->index);
    w->steps++;
    atomic_store(&w->in_step, 0);
}

static void yielder_main(void *object) {
    struct worker *w = object;
    cfa_park();
    for (long i = 0; i < STEPS; i++) {
        step(w);
        cfa_yield();
        /* Spread the steps over the resizing, without depending on it. */
        if (i == STEPS / 2)
            while (atomic_load(&resizing)) cfa_yield();
    }
}

static void ring_main(void *object) {
    struct worker *w = object;
    cfa_park();
    for (long k = 1; k <= ITERS; k++) {
        step(w);
        atomic_fetch_add(&w->sent, 1);
        cfa_unpark(&w->next->thread);
        cfa_park();
        CHECK(atomic_load(&w->prev->sent) >= k, "ring worker %d woke without its predecessor", w->index);
    }
}

static void resizer_main(void *object) {
    struct resizer *r = object;
    struct cfa_cluster *cl = cfa_current_cluster();
    uint64_t rng = prng_seed(1000 + r->index);
    cfa_park();
    for (int op = 0; op < OPS; op++) {
        bool add = r->own == 0 || (r->own < MAX_OWN && prng_next(&rng) % 2);
        if (add) {
            memset(&r->procs[r->own], 0, sizeof r->procs[r->own]);
            cfa_processor_start(&r->procs[r->own++]);
            r->adds++;
        } else {
            cfa_processor_stop(&r->procs[--r->own]);
            r->removes++;
        }
        if (r->own > r->max_own) r->max_own = r->own;
        unsigned n = cfa_cluster_processor_count(cl);
        CHECK(n >= 1 + (unsigned)r->own && n <= 1 + RESIZERS * MAX_OWN, "%u processors, resizer %d owns %d", n,
              r->index, r->own);
        cfa_yield();
    }
    while (r->own > 0) cfa_processor_stop(&r->procs[--r->own]);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    if (argc > 2 && !strcmp(argv[2], "symmetric"))
        cfa_test_resize_symmetric();
    struct cfa_cluster *cl = cfa_current_cluster();
    int nworkers = YIELDERS + RINGS * RING;
    struct worker *ws = zalloc_aligned(nworkers, sizeof *ws);
    struct resizer *rs = zalloc_aligned(RESIZERS, sizeof *rs);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        memset(ws, 0, sizeof *ws * nworkers);
        memset(rs, 0, sizeof *rs * RESIZERS);
        atomic_store(&resizing, 1);
        for (int i = 0; i < nworkers; i++) {
            struct worker *w = &ws[i];
            w->index = i;
            if (i < YIELDERS) {
                cfa_thread_start(&w->thread, yielder_main, w, "Yielder", 0);
            } else {
                int r = (i - YIELDERS) / RING, k = (i - YIELDERS) % RING;
                w->next = &ws[YIELDERS + r * RING + (k + 1) % RING];
                w->prev = &ws[YIELDERS + r * RING + (k + RING - 1) % RING];
                cfa_thread_start(&w->thread, ring_main, w, "Ring", 0);
            }
        }
        for (int i = 0; i < RESIZERS; i++) {
            rs[i].index = i;
            cfa_thread_start(&rs[i].thread, resizer_main, &rs[i], "Resizer", 0);
        }
        for (int i = 0; i < RESIZERS; i++) cfa_unpark(&rs[i].thread);
        for (int i = 0; i < nworkers; i++) cfa_unpark(&ws[i].thread);
        int resizes = 0, max_procs = 1;
        for (int i = 0; i < RESIZERS; i++) {
            cfa_thread_join(&rs[i].thread);
            CHECK_EQ(rs[i].adds + rs[i].removes, OPS);
            resizes += rs[i].adds + rs[i].removes;
            max_procs += rs[i].max_own;
            cfa_thread_destroy(&rs[i].thread);
        }
        atomic_store(&resizing, 0);
        CHECK_EQ(cfa_cluster_processor_count(cl), 1);
        for (int i = 0; i < nworkers; i++) cfa_thread_join(&ws[i].thread);
        for (int i = 0; i < nworkers; i++) {
            long want = i < YIELDERS ? STEPS : ITERS;
            CHECK(ws[i].steps == want, "worker %d did %ld steps", i, ws[i].steps);
            if (i >= YIELDERS) CHECK_EQ(atomic_load(&ws[i].sent), ITERS);
            CHECK_EQ(atomic_load(&ws[i].thread.ticket), 0);
            cfa_thread_destroy(&ws[i].thread);
        }
        CHECK_EQ(resizes, RESIZERS * OPS);
        CHECK(max_procs > 2, "the cluster never grew beyond 2 processors");
        REPORT("resize: %d resizes (1 to %d processors), %d yielders x %d steps, %d rings x %d x %d wake-ups exact\n",
               resizes, 1 + RESIZERS * MAX_OWN, YIELDERS, STEPS, RINGS, RING, ITERS);
    }
    free(rs);
    free(ws);
    return 0;
}
