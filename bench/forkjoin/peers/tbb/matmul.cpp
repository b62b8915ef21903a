// Matrix multiplication, TBB. forkjoin: parallel_invoke of the two halves
// of the row range down to the grain; parfor: parallel_for over a
// blocked_range of rows with the grain (default auto_partitioner).
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include "matmul.h"

static void mm_forkjoin(long lo, long hi)
{
    if (hi - lo <= mm_grain) {
        mm_rows(lo, hi);
        return;
    }
    long mid = lo + (hi - lo) / 2;
    tbb::parallel_invoke([=] { mm_forkjoin(lo, mid); }, [=] { mm_forkjoin(mid, hi); });
}

static void run_forkjoin() { mm_forkjoin(0, mm_n); }

static void run_parfor()
{
    tbb::parallel_for(tbb::blocked_range<long>(0, mm_n, mm_grain),
                      [](const tbb::blocked_range<long> &r) { mm_rows(r.begin(), r.end()); });
}

int main(int argc, char **argv)
{
    mm_setup(argc, argv);
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, fj.procs);
    fj_measure(mm_prepare, strcmp(fj.variant, "forkjoin") == 0 ? run_forkjoin : run_parfor, mm_check);
}
