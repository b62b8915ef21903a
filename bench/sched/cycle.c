/* Cycle (thesis 7.3, Figure 7.2): rings of 5 threads; each unparks the
 * next thread of its ring, then parks. -t is rings per processor: 100
 * ("many", the thesis's left column) or 1 ("few"). Throughput: parks
 * completed per second, all threads together.
 *
 * Stopping: a thread leaves its loop after a park returns with bench_stop
 * raised; its successor may then wait for an unpark that never comes, so
 * the main thread keeps unparking the threads still running until all
 * have left (extra permits are harmless then). */
#include "bench.h"

enum { RING = 5 };

struct cycler {
    long long         count;
    struct cycler    *next;
    _Atomic int       left;
    struct cfa_thread thread;
} __attribute__((aligned(64)));

static void cycler_main(void *object)
{
    struct cycler *c = object;
    cfa_park(); /* start gate */
    for (;;) {
        cfa_unpark(&c->next->thread);
        cfa_park();
        c->count++;
        if (atomic_load_explicit(&bench_stop, memory_order_relaxed))
            break;
    }
    atomic_store(&c->left, 1);
}

int main(int argc, char **argv)
{
    struct bench_args a = bench_parse(argc, argv, "cycle", 100, "park", NULL);
    struct cfa_processor *procs = bench_procs_start(a.procs);
    int n = a.per_proc * a.procs * RING;
    struct cycler *cs = bench_alloc(n, sizeof *cs);
    for (int i = 0; i < n; i++) {
        cs[i].next = &cs[i / RING * RING + (i + 1) % RING];
        cfa_thread_start(&cs[i].thread, cycler_main, &cs[i], "Cycler", 0);
    }
    double seconds = bench_run(&cs[0].thread, sizeof cs[0], n, a.seconds);
    for (bool all = false; !all; cfa_yield()) {
        all = true;
        for (int i = 0; i < n; i++)
            if (!atomic_load(&cs[i].left)) {
                all = false;
                cfa_unpark(&cs[i].thread);
            }
    }
    long long ops = 0;
    for (int i = 0; i < n; i++) {
        cfa_thread_join(&cs[i].thread);
        ops += cs[i].count;
    }
    bench_result("cycle", &a, n, ops, seconds);
    free(cs);
    bench_procs_stop(procs, a.procs);
    return 0;
}
