// fib, TBB: a task_group per call spawns fib(n-1), the caller computes
// fib(n-2) and waits; below the cut-off, fib_seq.
#include <tbb/global_control.h>
#include <tbb/task_group.h>
#include "fib.h"

static int64_t fib_tbb(int n)
{
    if (n < fib_cutoff)
        return fib_seq(n);
    int64_t a, b;
    tbb::task_group g;
    g.run([&] { a = fib_tbb(n - 1); });
    b = fib_tbb(n - 2);
    g.wait();
    return a + b;
}

static void run() { fib_result = fib_tbb(fib_n); }

int main(int argc, char **argv)
{
    fib_setup(argc, argv);
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, fj.procs);
    fj_measure(fib_prepare, run, fib_check);
}
