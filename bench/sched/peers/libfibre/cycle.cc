// Cycle (thesis 001 ch.7, sec. 7.3, Fig. 7.2): rings of 5 fibres; each
// parks (fibre_park), then unparks the next one of its ring
// (fibre_unpark; an unpark before the park is kept, as cfa-lite's);
// main unparks each ring's first fibre, so one token goes round each
// ring. Load: rings per processor. Result: parks per second, in Mops/s.
#include "common.h"

enum { RING = 5 };

struct Cycler {
    Fibre *self, *next;
};

static Cycler *cs;
static Counter *counts;
static int n;

static void cycler(Cycler *c) {
    Counter *count = &counts[c - cs];
    bench_gate();
    for (;;) {
        fibre_park();
        fibre_unpark(c->next);
        count->bump();
    }
}

int main(int argc, char **argv) {
    int procs = bench_arg(argc, argv, 1, "rings-per-processor");
    n = bench_arg(argc, argv, 2, "rings-per-processor") * procs * RING;
    bench_workers(procs);
    cs = new Cycler[n];
    counts = new Counter[n];
    for (int i = 0; i < n; i++) cs[i].self = new Fibre(Context::CurrCluster());
    for (int i = 0; i < n; i++) cs[i].next = cs[i / RING * RING + (i + 1) % RING].self;
    for (int i = 0; i < n; i++) cs[i].self->run(cycler, &cs[i]);
    for (int i = 0; i < n; i += RING) fibre_unpark(cs[i].self); /* one token per ring */
    bench_measure([](double t0) { return bench_mops(counts, n, t0); });
}
