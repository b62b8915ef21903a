/* Matrix multiplication, plain sequential C: the baseline of both forms
 * (every row in order). */
#include "matmul.h"

static void run(void) { mm_rows(0, mm_n); }

int main(int argc, char **argv)
{
    mm_setup(argc, argv);
    fj_measure(mm_prepare, run, mm_check);
}
