/* FFT, OpenMP tasks: above the cut-off the first half-size transform is a
 * task, the second runs in the caller, then taskwait and the butterflies;
 * fft_seq below. One parallel region per run. */
#include <omp.h>
#include "fft.h"

static void fft_omp(const fft_complex *in, fft_complex *out, long n, long s)
{
    if (n <= fft_cutoff) {
        fft_seq(in, out, n, s);
        return;
    }
#pragma omp task
    fft_omp(in, out, n / 2, 2 * s);
    fft_omp(in + s, out + n / 2, n / 2, 2 * s);
#pragma omp taskwait
    fft_combine(out, n, s);
}

static void run(void)
{
#pragma omp parallel
#pragma omp single
    fft_omp(fft_in, fft_out, fft_n, 1);
}

int main(int argc, char **argv)
{
    fft_setup(argc, argv);
    omp_set_num_threads(fj.procs);
    fj_measure(fft_prepare, run, fft_check);
}
