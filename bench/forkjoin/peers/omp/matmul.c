/* Matrix multiplication, OpenMP. forkjoin: the first half of the row range
 * is a task, the caller does the second, then taskwait, down to the grain;
 * parfor: `omp for` over the rows, schedule(guided, grain) (chunks of at
 * least the grain, sized by what is left: OpenMP's nearest to an adaptive
 * partitioner). */
#include <omp.h>
#include "matmul.h"

static void mm_forkjoin(long lo, long hi)
{
    if (hi - lo <= mm_grain) {
        mm_rows(lo, hi);
        return;
    }
    long mid = lo + (hi - lo) / 2;
#pragma omp task
    mm_forkjoin(lo, mid);
    mm_forkjoin(mid, hi);
#pragma omp taskwait
}

static void run_forkjoin(void)
{
#pragma omp parallel
#pragma omp single
    mm_forkjoin(0, mm_n);
}

static void run_parfor(void)
{
#pragma omp parallel for schedule(guided, mm_grain)
    for (long i = 0; i < mm_n; i++)
        mm_rows(i, i + 1);
}

int main(int argc, char **argv)
{
    mm_setup(argc, argv);
    omp_set_num_threads(fj.procs);
    fj_measure(mm_prepare, strcmp(fj.variant, "forkjoin") == 0 ? run_forkjoin : run_parfor, mm_check);
}
