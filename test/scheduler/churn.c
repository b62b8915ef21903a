// The Churn benchmark of thesis 7.5 as a correctness test: threads pick a
// random counting semaphore (a "spot"), V it, then P it, ITERS times, so
// threads constantly wake each other across processors. The thesis's two
// load levels: 100 threads per processor and 2 per processor, with
// spots = threads - processors (thesis: threads >= spots + processors), on
// 2 processors. As in the thesis's program, the first `spots` threads skip
// the V of their first iteration: without that debt every P would find the
// count its own V left, and nothing would ever block. A thread that has
// done its ITERS keeps V-ing random spots (without P) until every thread is
// done, so the last ones cannot be left blocked.
//
// Invariants, exact: every thread completes ITERS iterations; every P that
// blocked was ended by exactly one V that woke it (blocks == wakes on every
// spot), never by a stray permit; no waiter is left; each spot's count is
// its Vs minus its Ps; the threads' own tallies match the spots' books.
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: churn many: 200 threads, 198 spots, 500 iterations on 2 processors: books balance
// CHECK-NEXT: churn few: 4 threads, 2 spots, 50000 iterations on 2 processors: books balance
#include "sched_test.h"

enum { PROCS = 2 };

struct churner {
    int               index, nthreads, nspots;
    long              iters, done, blocks;
    struct csem      *spots;
    struct cfa_thread thread;
};

static _Atomic int finished;

static void churner_main(void *object) {
    struct churner *c = object;
    uint64_t rng = prng_seed(c->index);
    cfa_park(); /* start gate */
    for (; c->done < c->iters; c->done++) {
        struct csem *s = &c->spots[prng_next(&rng) % c->nspots];
        if (c->done > 0 || c->index >= c->nspots) csem_v(s, 0);
        int r = csem_p(s, NULL);
        CHECK(r >= 0, "thread %d woke from P without a V (stray permit)", c->index);
        c->blocks += r;
    }
    atomic_fetch_add(&finished, 1);
    while (atomic_load(&finished) < c->nthreads) {
        csem_v(&c->spots[prng_next(&rng) % c->nspots], 0);
        cfa_yield();
    }
}

static void run(const char *label, int per_proc, long iters) {
    struct extra_procs extra;
    procs_start(&extra, PROCS);
    int n = per_proc * PROCS, nspots = n - PROCS;
    struct churner *cs = zalloc_aligned(n, sizeof *cs);
    struct csem *spots = zalloc_aligned(nspots, sizeof *spots);
    atomic_store(&finished, 0);
    for (int i = 0; i < n; i++) {
        cs[i] = (struct churner){ .index = i, .nthreads = n, .nspots = nspots, .iters = iters, .spots = spots };
        cfa_thread_start(&cs[i].thread, churner_main, &cs[i], "Churner", 0);
    }
    for (int i = 0; i < n; i++) cfa_unpark(&cs[i].thread);
    for (int i = 0; i < n; i++) cfa_thread_join(&cs[i].thread);
    procs_stop(&extra);

    long thread_blocks = 0, ps = 0, blocks = 0;
    for (int i = 0; i < n; i++) {
        CHECK(cs[i].done == iters, "thread %d did %ld iterations", i, cs[i].done);
        CHECK_EQ(atomic_load(&cs[i].thread.ticket), 0);
        thread_blocks += cs[i].blocks;
        cfa_thread_destroy(&cs[i].thread);
    }
    for (int j = 0; j < nspots; j++) {
        struct csem *s = &spots[j];
        CHECK(s->blocks == s->wakes, "spot %d: %ld Ps blocked, %ld Vs woke one", j, s->blocks, s->wakes);
        CHECK(s->head == NULL && s->tail == NULL, "spot %d has a waiter left", j);
        CHECK(s->count == s->vs - s->ps, "spot %d: count %ld, Vs %ld, Ps %ld", j, s->count, s->vs, s->ps);
        ps += s->ps;
        blocks += s->blocks;
    }
    CHECK_EQ(ps, (long)n * iters);
    CHECK_EQ(blocks, thread_blocks);
    CHECK(blocks > 0, "no P ever blocked: the test churned nothing");
    free(spots);
    free(cs);
    REPORT("churn %s: %d threads, %d spots, %ld iterations on %d processors: books balance\n", label, n,
           nspots, iters, PROCS);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        run("many", 100, 500);
        run("few", 2, 50000);
    }
    return 0;
}
