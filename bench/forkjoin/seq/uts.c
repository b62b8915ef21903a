/* UTS, plain sequential C: the baseline (depth-first recursion). */
#include "uts.h"

static void run(void) { uts_seq(&uts_root, &uts_result); }

int main(int argc, char **argv)
{
    uts_setup(argc, argv);
    fj_measure(uts_prepare, run, uts_check);
}
