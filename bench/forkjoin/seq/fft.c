/* FFT, plain sequential C: the baseline (fft_seq on the whole input). */
#include "fft.h"

static void run(void) { fft_seq(fft_in, fft_out, fft_n, 1); }

int main(int argc, char **argv)
{
    fft_setup(argc, argv);
    fj_measure(fft_prepare, run, fft_check);
}
