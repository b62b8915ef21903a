/* Heat diffusion, OpenMP: one parallel region per run; in it every step is
 * an `omp for` over the interior rows, schedule(guided, grain), whose
 * implicit barrier ends the step. */
#include <omp.h>
#include "heat.h"

static void run(void)
{
#pragma omp parallel
    for (long t = 0; t < heat_steps; t++) {
#pragma omp for schedule(guided, heat_grain)
        for (long i = 1; i < heat_n - 1; i++)
            heat_rows(t, i, i + 1);
    }
}

int main(int argc, char **argv)
{
    heat_setup(argc, argv);
    omp_set_num_threads(fj.procs);
    fj_measure(heat_prepare, run, heat_check);
}
