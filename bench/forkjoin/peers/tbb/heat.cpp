// Heat diffusion, TBB: one parallel_for over the interior rows per step;
// its return (every row written) is the step's barrier.
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include "heat.h"

static void run()
{
    for (long t = 0; t < heat_steps; t++)
        tbb::parallel_for(tbb::blocked_range<long>(1, heat_n - 1, heat_grain),
                          [t](const tbb::blocked_range<long> &r) { heat_rows(t, r.begin(), r.end()); });
}

int main(int argc, char **argv)
{
    heat_setup(argc, argv);
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, fj.procs);
    fj_measure(heat_prepare, run, heat_check);
}
