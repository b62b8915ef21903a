// The Cycle benchmark of thesis 7.3 as a correctness test: rings of 5
// threads, each unparking the next thread of its ring and then parking,
// ITERS times. Both load levels of the thesis: 100 rings per processor
// ("many") and 1 ring per processor ("few", where the ready queue is often
// empty and idle sleep comes into play), on 2 processors.
//
// Invariants: every thread sends and receives exactly ITERS wake-ups, so
// every ring passes exactly 5 x ITERS; a thread's k-th park returns only
// after its predecessor's k-th unpark (no stray or lost permit); no thread
// runs on two processors at once; no permit is left over at the end. A lost
// wake-up hangs a ring (the timeout).
//
// RUN: %cc %s -I%S/include -I%S/../runtime/include -o %t %cfa-link
// RUN: %timeout %t %stress | FileCheck %s
// CHECK: cycle many: 200 rings x 5 threads x 1000 iterations on 2 processors ok
// CHECK-NEXT: cycle few: 2 rings x 5 threads x 10000 iterations on 2 processors ok
#include "sched_test.h"

enum { RING = 5, PROCS = 2 };

struct cycler {
    int               ring, index;
    long              iters;
    _Atomic long      sent, received;
    _Atomic int       in_step;
    struct cycler    *next, *prev;
    struct cfa_thread thread;
};

static void cycler_main(void *object) {
    struct cycler *c = object;
    cfa_park(); /* the start gate: a neighbour's unpark must not race our start */
    for (long k = 1; k <= c->iters; k++) {
        CHECK(atomic_exchange(&c->in_step, 1) == 0, "ring %d thread %d runs twice at once", c->ring, c->index);
        atomic_store(&c->in_step, 0);
        atomic_fetch_add(&c->sent, 1);
        cfa_unpark(&c->next->thread);
        cfa_park();
        long pred_sent = atomic_load(&c->prev->sent);
        CHECK(pred_sent >= k, "ring %d thread %d: park %ld returned after %ld wake-ups from its predecessor",
              c->ring, c->index, k, pred_sent);
        atomic_store(&c->received, k);
    }
}

static void run(const char *label, int rings_per_proc, long iters) {
    int rings = rings_per_proc * PROCS, n = rings * RING;
    struct cycler *cs = zalloc_aligned(n, sizeof *cs);
    for (int r = 0; r < rings; r++)
        for (int i = 0; i < RING; i++) {
            struct cycler *c = &cs[r * RING + i];
            c->ring = r;
            c->index = i;
            c->iters = iters;
            c->next = &cs[r * RING + (i + 1) % RING];
            c->prev = &cs[r * RING + (i + RING - 1) % RING];
        }
    for (int i = 0; i < n; i++) cfa_thread_start(&cs[i].thread, cycler_main, &cs[i], "Cycler", 0);
    for (int i = 0; i < n; i++) cfa_unpark(&cs[i].thread);
    for (int i = 0; i < n; i++) cfa_thread_join(&cs[i].thread);
    for (int r = 0; r < rings; r++) {
        long passed = 0;
        for (int i = 0; i < RING; i++) {
            struct cycler *c = &cs[r * RING + i];
            CHECK_EQ(atomic_load(&c->sent), iters);
            CHECK_EQ(atomic_load(&c->received), iters);
            CHECK_EQ(atomic_load(&c->thread.ticket), 0); /* every permit consumed */
            CHECK_EQ(atomic_load(&c->thread.state), CFA_THREAD_HALTED);
            passed += atomic_load(&c->received);
        }
        CHECK(passed == (long)RING * iters, "ring %d passed %ld wake-ups", r, passed);
    }
    for (int i = 0; i < n; i++) cfa_thread_destroy(&cs[i].thread);
    free(cs);
    REPORT("cycle %s: %d rings x %d threads x %ld iterations on %d processors ok\n", label, rings, RING,
           iters, PROCS);
}

int main(int argc, char **argv) {
    long reps = repeat_count(argc, argv);
    struct extra_procs procs;
    procs_start(&procs, PROCS);
    for (rep_index = 0; rep_index < reps; rep_index++) {
        run("many", 100, 1000);
        run("few", 1, 10000);
    }
    procs_stop(&procs);
    return 0;
}
