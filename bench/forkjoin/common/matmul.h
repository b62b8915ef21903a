/* matmul.h: the matrix multiplication workload: C = A x B for N x N
 * doubles, row by row (mm_rows: i-k-j order, the inner loop streams a row
 * of B into a row of C). Two parallel forms, the notes' two:
 *   forkjoin  a recursive task splits the row range in halves (one half
 *             spawned, the other run by the task) down to GRAIN rows;
 *   parfor    the runtime's parallel-for over the rows, GRAIN rows at least.
 * A and B hold small integers, so every product is exact: the check is
 * equality with the sequential product computed at start-up. */
#ifndef BENCH_FORKJOIN_MATMUL_H
#define BENCH_FORKJOIN_MATMUL_H
#include "fj.h"

static long mm_n, mm_grain;
static double *mm_a, *mm_b, *mm_c, *mm_ref;

/* Rows [lo, hi) of C. */
FJ_KERNEL void mm_rows(long lo, long hi)
{
    long n = mm_n;
    for (long i = lo; i < hi; i++) {
        double *__restrict c = mm_c + i * n;
        for (long j = 0; j < n; j++)
            c[j] = 0;
        for (long k = 0; k < n; k++) {
            double a = mm_a[i * n + k];
            const double *__restrict b = mm_b + k * n;
            for (long j = 0; j < n; j++)
                c[j] += a * b[j];
        }
    }
}

static inline void mm_setup(int argc, char **argv)
{
    fj_parse(argc, argv, "forkjoin|parfor");
    mm_n = FJ_PARAM(FJ_MATMUL_N);
    mm_grain = FJ_PARAM(FJ_MATMUL_GRAIN);
    size_t bytes = mm_n * mm_n * sizeof(double);
    mm_a = (double *)fj_alloc(bytes);
    mm_b = (double *)fj_alloc(bytes);
    mm_c = (double *)fj_alloc(bytes);
    mm_ref = (double *)fj_alloc(bytes);
    for (long i = 0; i < mm_n; i++)
        for (long j = 0; j < mm_n; j++) {
            mm_a[i * mm_n + j] = (double)((i * 31 + j * 17) % 19 - 9);
            mm_b[i * mm_n + j] = (double)((i * 13 + j * 7) % 23 - 11);
        }
    mm_rows(0, mm_n);
    memcpy(mm_ref, mm_c, bytes);
}

/* NaN everywhere: a row that no task computes fails the check. */
static inline void mm_prepare(void)
{
    for (long i = 0; i < mm_n * mm_n; i++)
        mm_c[i] = NAN;
}

static inline void mm_check(void) { fj_check_close("C", mm_c, mm_ref, (size_t)(mm_n * mm_n)); }
#endif
