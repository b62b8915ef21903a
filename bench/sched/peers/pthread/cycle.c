/* Cycle (thesis 001 ch.7, sec. 7.3, Fig. 7.2): rings of 5 pthreads; each
 * waits on its own semaphore, then posts the next one's; each ring's first
 * thread's semaphore starts at 1 (one token per ring, as the thesis's own
 * programs). Load: rings per processor. Result: waits per second, in
 * Mops/s. */
#include <semaphore.h>
#include "common.h"

enum { RING = 5 };
static sem_t *sems;
static struct counter *counts;

static void *cycler(void *arg) {
    long i = (long)arg, next = i / RING * RING + (i + 1) % RING;
    bench_gate();
    for (;;) {
        sem_wait(&sems[i]);
        sem_post(&sems[next]);
        bench_bump(&counts[i]);
    }
}

int main(int argc, char **argv) {
    int procs = bench_arg(argc, argv, 1, "rings-per-processor");
    int n = bench_arg(argc, argv, 2, "rings-per-processor") * procs * RING;
    bench_cpus(procs);
    sems = calloc(n, sizeof *sems);
    counts = calloc(n, sizeof *counts);
    for (int i = 0; i < n; i++) sem_init(&sems[i], 0, i % RING == 0); /* one token per ring */
    bench_spawn(n, cycler);
    double t0 = bench_open_and_sleep();
    bench_result(bench_mops(counts, n, t0));
}
