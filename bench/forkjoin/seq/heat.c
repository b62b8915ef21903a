/* Heat diffusion, plain sequential C: the baseline (every step, every row). */
#include "heat.h"

int main(int argc, char **argv)
{
    heat_setup(argc, argv);
    fj_measure(heat_prepare, heat_seq, heat_check);
}
