// FFT, TBB: parallel_invoke of the two half-size transforms above the
// cut-off, then the butterflies; fft_seq below.
#include <tbb/global_control.h>
#include <tbb/parallel_invoke.h>
#include "fft.h"

static void fft_tbb(const fft_complex *in, fft_complex *out, long n, long s)
{
    if (n <= fft_cutoff) {
        fft_seq(in, out, n, s);
        return;
    }
    tbb::parallel_invoke([=] { fft_tbb(in, out, n / 2, 2 * s); },
                         [=] { fft_tbb(in + s, out + n / 2, n / 2, 2 * s); });
    fft_combine(out, n, s);
}

static void run() { fft_tbb(fft_in, fft_out, fft_n, 1); }

int main(int argc, char **argv)
{
    fft_setup(argc, argv);
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, fj.procs);
    fj_measure(fft_prepare, run, fft_check);
}
