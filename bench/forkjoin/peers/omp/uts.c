/* UTS, OpenMP tasks: one task per child but the last, which the node's
 * task visits itself, then taskwait and the counts. One parallel region
 * per run. */
#include <omp.h>
#include "uts.h"

static void uts_omp(const struct uts_node *n, struct uts_count *c)
{
    int k = uts_children(n);
    uts_count_node(c, n, k);
    if (k == 0)
        return;
    struct uts_task *kids = alloca(k * sizeof *kids);
    for (int i = 0; i < k; i++) {
        uts_child(n, i, &kids[i].node);
        memset(&kids[i].count, 0, sizeof kids[i].count);
        struct uts_task *kid = &kids[i];
        if (i < k - 1) {
#pragma omp task firstprivate(kid)
            uts_omp(&kid->node, &kid->count);
        } else {
            uts_omp(&kid->node, &kid->count);
        }
    }
#pragma omp taskwait
    for (int i = 0; i < k; i++)
        uts_count_add(c, &kids[i].count);
}

static void run(void)
{
#pragma omp parallel
#pragma omp single
    uts_omp(&uts_root, &uts_result);
}

int main(int argc, char **argv)
{
    uts_setup(argc, argv);
    omp_set_num_threads(fj.procs);
    fj_measure(uts_prepare, run, uts_check);
}
