// Locality (thesis 001 ch.7, sec. 7.6, Fig. 7.11): churn with work. Each
// iteration a fibre increments 64 random cells of an 8 KiB array, then
// sends an array through a random spot and receives one from it.
// libfibre has no channel: a spot is a FIFO of arrays under a FredMutex
// plus a FredSemaphore counting them (send = push, V; receive = P, pop),
// as the pthread peer's. "share": the fibre adopts the array it
// received; "noshare": it keeps its own. Load: fibres per processor.
// Result: iterations per second, in Mops/s. As in churn, without
// preemption a fibre that takes its own array back keeps its worker (at
// 1 processor only 1 fibre of 100 ran in a smoke run).
#include <string.h>
#include "common.h"

enum { WSIZE = 1024, WCNT = 64 };

struct Spot {
    FredMutex lock;
    FredSemaphore count; /* arrays in the ring */
    uint64_t **ring;     /* n slots: never full, there are n arrays */
    int head = 0, tail = 0;
};

static Spot *spots;
static int n, nspots;
static bool share;

struct alignas(64) Local {
    uint64_t rng, *array;
};
static Local *ls;
static Counter *counts;

static uint64_t *exchange(Spot *s, uint64_t *mine) {
    s->lock.acquire();
    s->ring[s->tail] = mine;
    s->tail = (s->tail + 1) % n;
    s->lock.release();
    s->count.V();
    s->count.P();
    s->lock.acquire();
    uint64_t *got = s->ring[s->head];
    s->head = (s->head + 1) % n;
    s->lock.release();
    return got;
}

static void local(Local *l) {
    bench_gate();
    for (;;) {
        for (int j = 0; j < WCNT; j++) l->array[bench_rand(&l->rng) % WSIZE]++;
        uint64_t *got = exchange(&spots[bench_rand(&l->rng) % nspots], l->array);
        if (share) l->array = got;
        counts[l - ls].bump();
    }
}

int main(int argc, char **argv) {
    share = bench_variant(argc, argv, "share", "noshare");
    int procs = bench_arg(argc, argv, 1, "threads-per-processor share|noshare");
    n = bench_arg(argc, argv, 2, "threads-per-processor share|noshare") * procs;
    nspots = n > procs ? n - procs : 1;
    bench_workers(procs);
    spots = new Spot[nspots];
    for (int i = 0; i < nspots; i++) spots[i].ring = new uint64_t *[n];
    ls = new Local[n];
    counts = new Counter[n];
    for (int i = 0; i < n; i++) {
        ls[i].rng = i + 1;
        ls[i].array = (uint64_t *)calloc(WSIZE, sizeof(uint64_t));
        bench_fibre(local, &ls[i]);
    }
    bench_measure([](double t0) { return bench_mops(counts, n, t0); });
}
