// Churn (thesis 001 ch.7, sec. 7.5, Fig. 7.8): each fibre picks a random
// FredSemaphore (libfibre's blocking semaphore, FIFO baton passing like
// cfa-lite's) among (fibres - processors) spots, Vs it, then Ps it.
// Load: fibres per processor. Result: iterations per second, in Mops/s.
// As the thesis's programs, the first (fibres - processors) fibres skip
// their first V, so the spots hold waiters from the start and a V mostly
// hands off to one: without the skip (and without preemption) a fibre
// whose V found no waiter took its own permit back and went on, and a
// smoke run at 1 processor saw 1 churner of 100 ever count (at 2, 2 of
// 200).
#include "common.h"

static FredSemaphore *spots;
static int n, nspots;

struct alignas(64) Churner {
    uint64_t rng;
    bool skip;
};
static Churner *cs;
static Counter *counts;

static void churner(Churner *c) {
    bench_gate();
    for (;;) {
        FredSemaphore &s = spots[bench_rand(&c->rng) % nspots];
        if (!c->skip) s.V();
        c->skip = false;
        s.P();
        counts[c - cs].bump();
    }
}

int main(int argc, char **argv) {
    int procs = bench_arg(argc, argv, 1, "threads-per-processor");
    n = bench_arg(argc, argv, 2, "threads-per-processor") * procs;
    nspots = n > procs ? n - procs : 1;
    bench_workers(procs);
    spots = new FredSemaphore[nspots]; /* count 0 */
    cs = new Churner[n];
    counts = new Counter[n];
    for (int i = 0; i < n; i++) {
        cs[i].rng = i + 1;
        cs[i].skip = i < nspots;
        bench_fibre(churner, &cs[i]);
    }
    bench_measure([](double t0) { return bench_mops(counts, n, t0); });
}
