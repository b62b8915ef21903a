/* A C program linked against libtally.so (and so libcfa.so). */
#include "tally.h"
#include <stdio.h>

int main(void) {
    long calls;
    long sum = tally_sum(1000, &calls);
    printf("linked: sum %ld calls %ld\n", sum, calls);
    sum = tally_sum(100, &calls);
    printf("linked again: sum %ld calls %ld\n", sum, calls);
    return 0;
}
