/* fft.h: the FFT workload: a recursive radix-2 decimation-in-time FFT of
 * N = 2^LOG2N complex doubles, out of place. fft_seq(in, out, n, s)
 * transforms the n points in[0], in[s], in[2s], ... into out[0..n): the
 * even points into out's first half, the odd ones into its second half,
 * then fft_combine's butterflies. The parallel programs run the two halves
 * in parallel (parallel invoke) while n > CUTOFF and call fft_seq below.
 * Every program runs the same butterflies in the same order, so results
 * are checked against the sequential transform computed at start-up,
 * which is itself checked against a direct DFT on the test size. */
#ifndef BENCH_FORKJOIN_FFT_H
#define BENCH_FORKJOIN_FFT_H
#include "fj.h"

typedef struct { double re, im; } fft_complex;

static long fft_n, fft_cutoff;
static fft_complex *fft_in, *fft_out, *fft_ref;
static fft_complex *fft_twiddle; /* [k] = exp(-2 pi i k / N), k < N/2 */

/* The butterflies of one n-point level: out[k] and out[k + n/2] for k < n/2.
 * s = N / n indexes the twiddles of that level. */
FJ_KERNEL void fft_combine(fft_complex *out, long n, long s)
{
    long half = n / 2;
    for (long k = 0; k < half; k++) {
        fft_complex w = fft_twiddle[k * s], o = out[k + half], e = out[k];
        double t_re = w.re * o.re - w.im * o.im, t_im = w.re * o.im + w.im * o.re;
        out[k].re = e.re + t_re;
        out[k].im = e.im + t_im;
        out[k + half].re = e.re - t_re;
        out[k + half].im = e.im - t_im;
    }
}

FJ_KERNEL void fft_seq(const fft_complex *in, fft_complex *out, long n, long s)
{
    if (n == 1) {
        out[0] = in[0];
        return;
    }
    fft_seq(in, out, n / 2, 2 * s);
    fft_seq(in + s, out + n / 2, n / 2, 2 * s);
    fft_combine(out, n, s);
}

static inline void fft_check_against_dft(void)
{
    const double pi = 3.14159265358979323846;
    for (long k = 0; k < fft_n; k++) {
        double re = 0, im = 0;
        for (long j = 0; j < fft_n; j++) {
            double a = -2 * pi * (double)((j * k) % fft_n) / fft_n;
            re += fft_in[j].re * cos(a) - fft_in[j].im * sin(a);
            im += fft_in[j].re * sin(a) + fft_in[j].im * cos(a);
        }
        if (fabs(re - fft_ref[k].re) > 1e-9 * fft_n || fabs(im - fft_ref[k].im) > 1e-9 * fft_n)
            fj_fail("FFT[%ld] = (%g, %g), the direct DFT gives (%g, %g)", k, fft_ref[k].re, fft_ref[k].im, re, im);
    }
}

static inline void fft_setup(int argc, char **argv)
{
    const double pi = 3.14159265358979323846;
    fj_parse(argc, argv, NULL);
    fft_n = 1L << FJ_PARAM(FJ_FFT_LOG2N);
    fft_cutoff = FJ_PARAM(FJ_FFT_CUTOFF);
    fft_in = (fft_complex *)fj_alloc(fft_n * sizeof *fft_in);
    fft_out = (fft_complex *)fj_alloc(fft_n * sizeof *fft_out);
    fft_ref = (fft_complex *)fj_alloc(fft_n * sizeof *fft_ref);
    fft_twiddle = (fft_complex *)fj_alloc(fft_n / 2 * sizeof *fft_twiddle);
    for (long k = 0; k < fft_n / 2; k++) {
        fft_twiddle[k].re = cos(-2 * pi * k / fft_n);
        fft_twiddle[k].im = sin(-2 * pi * k / fft_n);
    }
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (long j = 0; j < fft_n; j++) {
        fft_in[j].re = fj_unit(&seed);
        fft_in[j].im = fj_unit(&seed);
    }
    fft_seq(fft_in, fft_ref, fft_n, 1);
    if (fj.test_size)
        fft_check_against_dft();
}

static inline void fft_prepare(void) { memset(fft_out, 0, fft_n * sizeof *fft_out); }

static inline void fft_check(void)
{
    fj_check_close("fft", (const double *)fft_out, (const double *)fft_ref, 2 * (size_t)fft_n);
}
#endif
