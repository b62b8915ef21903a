/* fib, OpenMP tasks: a task computes fib(n-1), the caller fib(n-2), then
 * taskwait; below the cut-off, fib_seq. One parallel region per run. */
#include <omp.h>
#include "fib.h"

static int64_t fib_omp(int n)
{
    if (n < fib_cutoff)
        return fib_seq(n);
    int64_t a, b;
#pragma omp task shared(a)
    a = fib_omp(n - 1);
    b = fib_omp(n - 2);
#pragma omp taskwait
    return a + b;
}

static void run(void)
{
#pragma omp parallel
#pragma omp single
    fib_result = fib_omp(fib_n);
}

int main(int argc, char **argv)
{
    fib_setup(argc, argv);
    omp_set_num_threads(fj.procs);
    fj_measure(fib_prepare, run, fib_check);
}
