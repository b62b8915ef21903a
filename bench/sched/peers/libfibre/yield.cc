// Yield (thesis 001 ch.7, sec. 7.4, Fig. 7.5): fibres that only call
// Fibre::yield. libfibre's yield looks at its own worker's ready queue
// only: with nothing else there it returns at once, without a switch (the
// thesis notes it for "few"). Load: fibres per processor. Result: yields
// per second, in Mops/s.
#include "common.h"

static Counter *counts;
static int n;

static void yielder(Counter *c) {
    bench_gate();
    for (;;) {
        Fibre::yield();
        c->bump();
    }
}

int main(int argc, char **argv) {
    int procs = bench_arg(argc, argv, 1, "threads-per-processor");
    n = bench_arg(argc, argv, 2, "threads-per-processor") * procs;
    bench_workers(procs);
    counts = new Counter[n];
    for (int i = 0; i < n; i++) bench_fibre(yielder, &counts[i]);
    bench_measure([](double t0) { return bench_mops(counts, n, t0); });
}
