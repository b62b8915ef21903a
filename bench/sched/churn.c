/* Churn (thesis 7.5, Figure 7.8): threads pick a random counting
 * semaphore, V it, then P it. -t is threads per processor: 100 ("many")
 * or 2 ("few", the thesis's right column); spots = threads - processors
 * (the thesis's condition threads >= spots + processors, with equality).
 * The first `spots` threads skip their first V, which is what makes Ps
 * block (see test/scheduler/churn.c). Throughput: V+P iterations per
 * second, all threads together. */
#include "bench.h"

struct churner {
    long long         count;
    int               index, nspots;
    struct csem      *spots;
    _Atomic int       left;
    struct cfa_thread thread;
} __attribute__((aligned(64)));

static void churner_main(void *object)
{
    struct churner *c = object;
    uint64_t rng = prng_seed(c->index);
    bool skip = c->index < c->nspots;
    cfa_park(); /* start gate */
    do {
        struct csem *s = &c->spots[prng_next(&rng) % c->nspots];
        if (!skip)
            csem_v(s, 0);
        skip = false;
        csem_p(s, NULL);
        c->count++;
    } while (!atomic_load_explicit(&bench_stop, memory_order_relaxed));
    atomic_store(&c->left, 1);
}

int main(int argc, char **argv)
{
    struct bench_args a = bench_parse(argc, argv, "churn", 100, "semaphore", NULL);
    struct cfa_processor *procs = bench_procs_start(a.procs);
    int n = a.per_proc * a.procs, nspots = n - a.procs > 0 ? n - a.procs : 1;
    struct churner *cs = bench_alloc(n, sizeof *cs);
    struct csem *spots = bench_alloc(nspots, sizeof *spots);
    for (int i = 0; i < n; i++) {
        cs[i].index = i;
        cs[i].nspots = nspots;
        cs[i].spots = spots;
        cfa_thread_start(&cs[i].thread, churner_main, &cs[i], "Churner", 0);
    }
    double seconds = bench_run(&cs[0].thread, sizeof cs[0], n, a.seconds);
    /* Drain: Vs until every thread has left (blocked ones need them). */
    for (bool all = false; !all; cfa_yield()) {
        all = true;
        for (int i = 0; i < n; i++)
            all &= atomic_load(&cs[i].left) != 0;
        for (int j = 0; !all && j < nspots; j++)
            csem_v(&spots[j], 0);
    }
    long long ops = 0;
    for (int i = 0; i < n; i++) {
        cfa_thread_join(&cs[i].thread);
        ops += cs[i].count;
    }
    bench_result("churn", &a, n, ops, seconds);
    free(spots);
    free(cs);
    bench_procs_stop(procs, a.procs);
    return 0;
}
