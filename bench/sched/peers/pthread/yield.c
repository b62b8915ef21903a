/* Yield (thesis 001 ch.7, sec. 7.4, Fig. 7.5): pthreads that only call
 * sched_yield. Load: threads per processor. Result: yields per second,
 * in Mops/s. */
#include "common.h"

static struct counter *counts;

static void *yielder(void *arg) {
    long i = (long)arg;
    bench_gate();
    for (;;) {
        sched_yield();
        bench_bump(&counts[i]);
    }
}

int main(int argc, char **argv) {
    int procs = bench_arg(argc, argv, 1, "threads-per-processor");
    int n = bench_arg(argc, argv, 2, "threads-per-processor") * procs;
    bench_cpus(procs);
    counts = calloc(n, sizeof *counts);
    bench_spawn(n, yielder);
    double t0 = bench_open_and_sleep();
    bench_result(bench_mops(counts, n, t0));
}
