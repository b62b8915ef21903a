/* Yield (thesis 7.4, Figure 7.5): threads that only yield. -t is threads
 * per processor: 100 ("many") or 1 ("few", where the ready queue is
 * often empty). Throughput: yields per second, all threads together. */
#include "bench.h"

struct yielder {
    long long         count;
    struct cfa_thread thread;
} __attribute__((aligned(64)));

static void yielder_main(void *object)
{
    struct yielder *y = object;
    cfa_park(); /* start gate */
    do {
        cfa_yield();
        y->count++;
    } while (!atomic_load_explicit(&bench_stop, memory_order_relaxed));
}

int main(int argc, char **argv)
{
    struct bench_args a = bench_parse(argc, argv, "yield", 100, "yield", NULL);
    struct cfa_processor *procs = bench_procs_start(a.procs);
    int n = a.per_proc * a.procs;
    struct yielder *ys = bench_alloc(n, sizeof *ys);
    for (int i = 0; i < n; i++)
        cfa_thread_start(&ys[i].thread, yielder_main, &ys[i], "Yielder", 0);
    double seconds = bench_run(&ys[0].thread, sizeof ys[0], n, a.seconds);
    long long ops = 0;
    for (int i = 0; i < n; i++) {
        cfa_thread_join(&ys[i].thread);
        ops += ys[i].count;
    }
    bench_result("yield", &a, n, ops, seconds);
    free(ys);
    bench_procs_stop(procs, a.procs);
    return 0;
}
