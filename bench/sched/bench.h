/* bench.h: what the scheduler micro-benchmarks (thesis chapter 7) share.
 *
 * Every benchmark takes
 *   -p N   processors (the main cluster's: the main processor plus N-1)
 *   -t N   threads per processor (the thesis's load levels)
 *   -d S   duration in seconds (default 1; the thesis runs 15 x 5 s)
 * and prints one line
 *   RESULT bench=<name> variant=<v> procs=<p> threads=<n> ops=<ops> seconds=<s> ops_per_s=<x>
 * (transfer prints latency_us=<mean> instead of ops_per_s, or
 * status=dnc when a transfer was not acknowledged within 5 s), which
 * bench/sched/run.sh collects. Each benchmark's threads wait at a start
 * gate (a park) until all exist; the main thread opens it, sleeps for the
 * duration (cfa_sleep_ns: it is not one of the measured threads), then
 * raises `bench_stop` and drains the threads.
 */
#ifndef CFA_BENCH_H
#define CFA_BENCH_H

#include <cfa/runtime.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sched_sync.h"

struct bench_args {
    int         procs;
    int         per_proc;
    double      seconds;
    const char *variant;
};

static _Atomic int bench_stop;

static inline void bench_usage(const char *name, const char *variants)
{
    fprintf(stderr, "usage: %s [-p processors] [-t threads-per-processor] [-d seconds]%s%s\n", name,
            variants ? " [-v " : "", variants ? variants : "");
    if (variants)
        fprintf(stderr, "]\n");
    exit(2);
}

static inline struct bench_args bench_parse(int argc, char **argv, const char *name, int per_proc,
                                            const char *variant, const char *variants)
{
    struct bench_args a = { .procs = 1, .per_proc = per_proc, .seconds = 1.0, .variant = variant };
    int c;
    while ((c = getopt(argc, argv, "p:t:d:v:")) != -1) {
        switch (c) {
        case 'p': a.procs = atoi(optarg); break;
        case 't': a.per_proc = atoi(optarg); break;
        case 'd': a.seconds = atof(optarg); break;
        case 'v':
            if (!variants || !strstr(variants, optarg))
                bench_usage(name, variants);
            a.variant = optarg;
            break;
        default: bench_usage(name, variants);
        }
    }
    if (a.procs < 1 || a.procs > 64 || a.per_proc < 1 || a.seconds <= 0)
        bench_usage(name, variants);
    return a;
}

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline void *bench_alloc(size_t n, size_t size)
{
    size_t bytes = ((n * size + 63) / 64) * 64;
    void *p = aligned_alloc(64, bytes ? bytes : 64);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    memset(p, 0, bytes);
    return p;
}

/* The extra processors of the main cluster (the main one is always there). */
static inline struct cfa_processor *bench_procs_start(int procs)
{
    struct cfa_processor *p = bench_alloc(procs, sizeof *p);
    for (int i = 1; i < procs; i++)
        cfa_processor_start(&p[i]);
    return p;
}

static inline void bench_procs_stop(struct cfa_processor *p, int procs)
{
    for (int i = procs - 1; i >= 1; i--)
        cfa_processor_stop(&p[i]);
    free(p);
}

/* Opens the start gate of `n` threads at stride `stride` bytes from
 * `first`, sleeps for the duration and raises bench_stop. Returns the
 * measured seconds. */
static inline double bench_run(struct cfa_thread *first, size_t stride, int n, double seconds)
{
    atomic_store(&bench_stop, 0);
    double start = bench_now();
    for (int i = 0; i < n; i++)
        cfa_unpark((struct cfa_thread *)((char *)first + stride * i));
    cfa_sleep_ns((int64_t)(seconds * 1e9));
    atomic_store(&bench_stop, 1);
    return bench_now() - start;
}

static inline void bench_result(const char *name, const struct bench_args *a, int threads, long long ops,
                                double seconds)
{
    printf("RESULT bench=%s variant=%s procs=%d threads=%d ops=%lld seconds=%.3f ops_per_s=%.0f\n", name,
           a->variant, a->procs, threads, ops, seconds, ops / seconds);
    fflush(stdout);
}

#endif
