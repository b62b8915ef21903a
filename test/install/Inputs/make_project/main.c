#include <stdio.h>
int run_workers(int n);
int main(void) { printf("total %d\n", run_workers(10)); return 0; }
