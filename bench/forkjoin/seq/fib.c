/* fib, plain sequential C: the baseline (no cut-off: plain recursion). */
#include "fib.h"

static void run(void) { fib_result = fib_seq(fib_n); }

int main(int argc, char **argv)
{
    fib_setup(argc, argv);
    fj_measure(fib_prepare, run, fib_check);
}
