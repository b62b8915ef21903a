/* fj.h: what every C and C++ program of the fork-join suite shares: the
 * problem sizes and cut-offs, the command line, the timing loop and the
 * verdict. The workloads' sequential code and checks live beside it (fib.h,
 * fft.h, uts.h, matmul.h, heat.h), so that every runtime's program adds
 * only its parallel structure. The Rayon peer reads the FJ_* numbers below
 * through its build.rs: this file is their one definition.
 *
 * Command line: `program processors [variant]`; FJ_SIZE=test picks the
 * *_TEST sizes (the smoke test's), BENCH_SECONDS (default 1) how long to
 * keep measuring. The program
 *   1. prepares and runs the workload once untimed (warm-up: thread pools
 *      started, pages touched) and checks the result,
 *   2. then repeats prepare (untimed), run (timed), check (untimed) until
 *      BENCH_SECONDS of runs have passed (at least once),
 *   3. prints the runs' median as `RESULT <milliseconds per run>`, last;
 *      the line before it also gives the median process CPU time per run,
 *      which a loaded machine inflates less than the elapsed time (at 1
 *      processor it is the work plus the runtime's overhead).
 * A wrong result stops the program at once with "VERIFY FAILED" on stderr
 * and exit status 1, which the driver records as an error.
 */
#ifndef BENCH_FORKJOIN_FJ_H
#define BENCH_FORKJOIN_FJ_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- Problem sizes and cut-offs (NAME: benchmark size, NAME_TEST: smoke test) ---- */

/* fib(N) by the doubly recursive definition; below CUTOFF a call is plain
 * sequential recursion, at or above it fib(n-1) is spawned. */
#define FJ_FIB_N 37
#define FJ_FIB_N_TEST 20
#define FJ_FIB_CUTOFF 12
#define FJ_FIB_CUTOFF_TEST 8

/* Radix-2 FFT of 2^LOG2N complex doubles; sub-transforms of CUTOFF points
 * or fewer run sequentially, larger ones invoke their two halves in parallel. */
#define FJ_FFT_LOG2N 20
#define FJ_FFT_LOG2N_TEST 10
#define FJ_FFT_CUTOFF 1024
#define FJ_FFT_CUTOFF_TEST 64

/* C = A x B, N x N doubles; GRAIN rows is the smallest piece of work
 * (the notes' "minimum array sub-size of 4"). */
#define FJ_MATMUL_N 512
#define FJ_MATMUL_N_TEST 32
#define FJ_MATMUL_GRAIN 4
#define FJ_MATMUL_GRAIN_TEST 4

/* 2D heat diffusion on an N x N grid (fixed boundary), STEPS Jacobi steps;
 * GRAIN rows is the smallest piece of a step. */
#define FJ_HEAT_N 512
#define FJ_HEAT_N_TEST 64
#define FJ_HEAT_STEPS 500
#define FJ_HEAT_STEPS_TEST 10
#define FJ_HEAT_GRAIN 4
#define FJ_HEAT_GRAIN_TEST 4

/* UTS: the trees are in uts.h (the standard T1 and T3, and small test trees). */

#define FJ_PARAM(name) (fj.test_size ? name##_TEST : name)

/* A workload's leaf kernel is never inlined: every program (each runtime's,
 * and the sequential one) then runs the same machine code for it, and a
 * caller's register allocation cannot change the kernel's inner loop,
 * which on some CPUs moves its time by several per cent. */
#define FJ_KERNEL __attribute__((noinline)) /* and not static: no caller-specific clone */

/* ---- Command line and verdict ---- */

struct fj_options {
    const char *program;
    int procs;           /* processors (worker threads) the runtime may use */
    const char *variant; /* "-" for a workload without variants */
    int test_size;       /* FJ_SIZE=test */
    double seconds;      /* BENCH_SECONDS */
};
static struct fj_options fj;

static inline void fj_usage(const char *variants)
{
    fprintf(stderr, "usage: %s processors%s%s (env FJ_SIZE=bench|test, BENCH_SECONDS=seconds)\n",
            fj.program, variants ? " " : "", variants ? variants : "");
    exit(2);
}

/* variants: NULL, or the accepted variant names separated by '|'. */
static inline void fj_parse(int argc, char **argv, const char *variants)
{
    fj.program = argv[0];
    fj.procs = argc > 1 ? atoi(argv[1]) : 0;
    fj.variant = "-";
    if (fj.procs < 1 || fj.procs > 1024 || argc != (variants ? 3 : 2))
        fj_usage(variants);
    if (variants) {
        size_t len = strlen(argv[2]);
        const char *p = variants;
        for (;;) {
            const char *end = strchr(p, '|');
            size_t n = end ? (size_t)(end - p) : strlen(p);
            if (n == len && strncmp(p, argv[2], n) == 0)
                break;
            if (!end)
                fj_usage(variants);
            p = end + 1;
        }
        fj.variant = argv[2];
    }
    const char *size = getenv("FJ_SIZE");
    if (size && strcmp(size, "test") != 0 && strcmp(size, "bench") != 0) {
        fprintf(stderr, "%s: FJ_SIZE must be 'bench' or 'test', not '%s'\n", fj.program, size);
        exit(2);
    }
    fj.test_size = size && strcmp(size, "test") == 0;
    const char *s = getenv("BENCH_SECONDS");
    fj.seconds = s ? atof(s) : 1.0;
    if (!(fj.seconds > 0))
        fj.seconds = 1.0;
}

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
static inline void fj_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s %s: VERIFY FAILED: ", fj.program, fj.variant);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stdout);
    exit(1);
}

/* ---- Helpers for the workloads ---- */

static inline double fj_clock(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static inline double fj_now(void) { return fj_clock(CLOCK_MONOTONIC); }

static inline void *fj_alloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "%s: out of memory (%zu bytes)\n", fj.program, bytes);
        exit(1);
    }
    return p;
}

/* Deterministic inputs: xorshift64*, state != 0; fj_unit in [-1, 1). */
static inline uint64_t fj_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}
static inline double fj_unit(uint64_t *s) { return (double)(fj_rand(s) >> 11) * 0x1p-52 - 1.0; }

/* Fails unless got[i] equals want[i] within a relative 1e-12 for every i.
 * The parallel programs run the same operations in the same order as the
 * sequential code, so the values are expected to be identical; the margin
 * only keeps a compiler's legal reassociation from failing the check. */
static inline void fj_check_close(const char *what, const double *got, const double *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double tol = 1e-12 * (fabs(want[i]) > 1 ? fabs(want[i]) : 1);
        if (!(fabs(got[i] - want[i]) <= tol))
            fj_fail("%s[%zu] = %.17g, the sequential result is %.17g", what, i, got[i], want[i]);
    }
}

/* ---- The timing loop ---- */

static inline int fj_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Sorts v[0..n) and returns its median. */
static inline double fj_median(double *v, int n)
{
    qsort(v, n, sizeof v[0], fj_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Steps 1-3 of the protocol above; never returns. */
#if defined(__GNUC__)
__attribute__((noreturn))
#endif
static inline void fj_measure(void (*prepare)(void), void (*run)(void), void (*check)(void))
{
    enum { MAX_RUNS = 10000 };
    static double ms[MAX_RUNS], cpu_ms[MAX_RUNS];
    int runs = 0;
    double spent = 0;
    prepare();
    run();
    check();
    while (runs < MAX_RUNS && (runs == 0 || spent < fj.seconds)) {
        prepare();
        double c0 = fj_clock(CLOCK_PROCESS_CPUTIME_ID), t0 = fj_now();
        run();
        double t = fj_now() - t0, c = fj_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
        check();
        ms[runs] = t * 1e3;
        cpu_ms[runs++] = c * 1e3;
        spent += t;
    }
    double median = fj_median(ms, runs), cpu = fj_median(cpu_ms, runs);
    printf("%s %s: %d processor(s), %s size, %d runs verified, min %.3f ms, median %.3f ms, CPU %.3f ms\n",
           fj.program, fj.variant, fj.procs, fj.test_size ? "test" : "bench", runs, ms[0], median, cpu);
    printf("RESULT %.6g\n", median);
    fflush(stdout);
    exit(0);
}

#endif
