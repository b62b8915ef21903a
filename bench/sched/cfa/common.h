/* common.h: what the cfa-lite versions of the thesis chapter 7
 * benchmarks share (the Go, Tokio and pthread peers repeat these few
 * lines in their own language): the command line (argv[1] processors,
 * argv[2] load, i.e. threads or rings per processor), the duration
 * (env BENCH_SECONDS, default 1), a clock, a per-thread PRNG and the
 * suite's output line. Invariant: a measurement prints exactly one
 * "RESULT <number>" (or "RESULT dnf") as its last stdout line, then the
 * process exits at once with _exit: threads still blocked at the end of
 * a timed run are not drained (the count was read at the deadline). With
 * CFA_STATS=1 it leaves through exit() instead, so the runtime prints its
 * counters (docs/configuration.md). */
#ifndef BENCH_SCHED_CFA_COMMON_H
#define BENCH_SCHED_CFA_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static inline double bench_seconds(void) {
    const char *s = getenv("BENCH_SECONDS");
    double d = s ? atof(s) : 1.0;
    return d > 0 ? d : 1.0;
}

/* argv[i] as a positive integer, or a usage error (exit 2). */
static inline int bench_arg(int argc, char **argv, int i, const char *what) {
    int v = i < argc ? atoi(argv[i]) : 0;
    if (v < 1 || v > 100000) {
        fprintf(stderr, "usage: %s processors %s (both positive integers)\n", argv[0], what);
        exit(2);
    }
    return v;
}

/* argv[3], the variant, which is `yes` or `no` (share|noshare, park|yield):
 * whether it is `yes`; anything else is a usage error (exit 2). */
static inline int bench_variant(int argc, char **argv, const char *yes, const char *no) {
    if (argc > 3 && !strcmp(argv[3], yes)) return 1;
    if (argc > 3 && !strcmp(argv[3], no)) return 0;
    fprintf(stderr, "usage: %s processors threads-per-processor %s|%s\n", argv[0], yes, no);
    exit(2);
}

/* BENCH_THREADS: how many threads spawn creates (default one million). */
static inline long bench_threads(void) {
    const char *s = getenv("BENCH_THREADS");
    long n = s ? atol(s) : 1000000;
    return n > 0 ? n : 1000000;
}

/* Resident memory of the process: VmRSS + VmPTE (page tables are memory
 * that threads' stacks cost too), in bytes. */
static inline long bench_resident_bytes(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    long kb = 0, v;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &v) == 1 || sscanf(line, "VmPTE: %ld", &v) == 1) kb += v;
    if (f) fclose(f);
    return kb * 1024;
}

static inline uint64_t bench_rand(uint64_t *s) { /* xorshift64*; *s != 0 */
    *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static inline void bench_exit(void) {
    fflush(stdout);
    const char *stats = getenv("CFA_STATS");
    if (stats && strcmp(stats, "0") != 0)
        exit(0);
    _exit(0);
}

static inline void bench_result(double value) {
    printf("RESULT %.6g\n", value);
    bench_exit();
}

static inline void bench_dnf(void) {
    printf("RESULT dnf\n");
    bench_exit();
}
#endif
