/* Churn (thesis 001 ch.7, sec. 7.5, Fig. 7.8): each pthread picks a
 * random sem_t among (threads - processors) spots, posts it, then waits
 * on it. As the thesis's programs, the first (threads - processors)
 * threads skip their first post: the spots hold waiters from the start,
 * so a post mostly wakes one (sem_t barges: the poster may still take
 * its permit back first).
 * Load: threads per processor. Result: iterations per second, in
 * Mops/s. */
#include <semaphore.h>
#include "common.h"

static sem_t *spots;
static int nspots;
static struct counter *counts;

static void *churner(void *arg) {
    long i = (long)arg;
    uint64_t rng = i + 1;
    int skip = i < nspots;
    bench_gate();
    for (;;) {
        sem_t *s = &spots[bench_rand(&rng) % nspots];
        if (!skip) sem_post(s);
        skip = 0;
        sem_wait(s);
        bench_bump(&counts[i]);
    }
}

int main(int argc, char **argv) {
    int procs = bench_arg(argc, argv, 1, "threads-per-processor");
    int n = bench_arg(argc, argv, 2, "threads-per-processor") * procs;
    nspots = n > procs ? n - procs : 1;
    bench_cpus(procs);
    spots = calloc(nspots, sizeof *spots);
    counts = calloc(n, sizeof *counts);
    for (int i = 0; i < nspots; i++) sem_init(&spots[i], 0, 0);
    bench_spawn(n, churner);
    double t0 = bench_open_and_sleep();
    bench_result(bench_mops(counts, n, t0));
}
