/* heat.h: the 2D heat diffusion workload: STEPS explicit (Jacobi) steps
 * on an N x N grid whose border stays fixed (top row 100, left column 50,
 * the rest 0). Step t reads grid t % 2 and writes grid (t + 1) % 2, so a
 * step may start only when every row of the previous one is written: a
 * barrier (or a join) per step. The parallel programs split each step's
 * interior rows, GRAIN rows at least. Checked against the sequential
 * result computed at start-up. */
#ifndef BENCH_FORKJOIN_HEAT_H
#define BENCH_FORKJOIN_HEAT_H
#include "fj.h"

#define HEAT_K 0.2 /* diffusion number: stable below 0.25 */

static long heat_n, heat_steps, heat_grain;
static double *heat_grid[2], *heat_ref;

/* Interior rows [lo, hi) of step t (1 <= lo, hi <= N - 1). */
FJ_KERNEL void heat_rows(long t, long lo, long hi)
{
    long n = heat_n;
    const double *__restrict src = heat_grid[t % 2];
    double *__restrict dst = heat_grid[(t + 1) % 2];
    for (long i = lo; i < hi; i++)
        for (long j = 1; j < n - 1; j++) {
            long x = i * n + j;
            dst[x] = src[x] + HEAT_K * (src[x - n] + src[x + n] + src[x - 1] + src[x + 1] - 4 * src[x]);
        }
}

static inline void heat_seq(void)
{
    for (long t = 0; t < heat_steps; t++)
        heat_rows(t, 1, heat_n - 1);
}

static inline void heat_prepare(void)
{
    long n = heat_n;
    for (int g = 0; g < 2; g++)
        for (long i = 0; i < n; i++)
            for (long j = 0; j < n; j++)
                heat_grid[g][i * n + j] = i == 0 ? 100.0 : j == 0 ? 50.0 : 0.0;
}

static inline void heat_setup(int argc, char **argv)
{
    fj_parse(argc, argv, NULL);
    heat_n = FJ_PARAM(FJ_HEAT_N);
    heat_steps = FJ_PARAM(FJ_HEAT_STEPS);
    heat_grain = FJ_PARAM(FJ_HEAT_GRAIN);
    size_t bytes = heat_n * heat_n * sizeof(double);
    heat_grid[0] = (double *)fj_alloc(bytes);
    heat_grid[1] = (double *)fj_alloc(bytes);
    heat_ref = (double *)fj_alloc(bytes);
    heat_prepare();
    heat_seq();
    memcpy(heat_ref, heat_grid[heat_steps % 2], bytes);
}

static inline void heat_check(void)
{
    fj_check_close("grid", heat_grid[heat_steps % 2], heat_ref, (size_t)(heat_n * heat_n));
}
#endif
