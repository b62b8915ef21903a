// UTS, TBB: a task_group per node runs one task per child but the last,
// which the node's task visits itself, then waits and adds the counts.
#include <tbb/global_control.h>
#include <tbb/task_group.h>
#include "uts.h"

static void uts_tbb(const struct uts_node *n, struct uts_count *c)
{
    int k = uts_children(n);
    uts_count_node(c, n, k);
    if (k == 0)
        return;
    struct uts_task *kids = (struct uts_task *)alloca(k * sizeof *kids);
    tbb::task_group g;
    for (int i = 0; i < k; i++) {
        uts_child(n, i, &kids[i].node);
        kids[i].count = uts_count{};
        if (i < k - 1)
            g.run([kids, i] { uts_tbb(&kids[i].node, &kids[i].count); });
        else
            uts_tbb(&kids[i].node, &kids[i].count);
    }
    g.wait();
    for (int i = 0; i < k; i++)
        uts_count_add(c, &kids[i].count);
}

static void run() { uts_tbb(&uts_root, &uts_result); }

int main(int argc, char **argv)
{
    uts_setup(argc, argv);
    tbb::global_control threads(tbb::global_control::max_allowed_parallelism, fj.procs);
    fj_measure(uts_prepare, run, uts_check);
}
