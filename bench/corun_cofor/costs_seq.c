// The sequential C baseline of costs.cfa: the same fib and loop, no tasks.
//   costs_seq fib N | costs_seq cofor N REPS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) static long fib(int n) {
    if (n < 2) return n;
    long a = fib(n - 1);
    long b = fib(n - 2);
    return a + b;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: costs_seq fib N | costs_seq cofor N REPS\n"); return 2; }
    double t0 = now();
    if (strcmp(argv[1], "fib") == 0) {
        long r = fib(atoi(argv[2]));
        double t = now() - t0;
        printf("fib(%s) = %ld: %.4f s sequential\nRESULT %.6f\n", argv[2], r, t, t);
    } else {
        long n = atol(argv[2]), reps = atol(argv[3]);
        long *a = calloc(n, sizeof *a);
        for (long r = 0; r < reps; r++)
            for (long i = 0; i < n; i++) a[i] = a[i] * 3 + i;
        long check = 0;
        for (long i = 0; i < n; i++) check += a[i] & 0xff;
        double t = now() - t0;
        printf("loop %ld x %ld: %.4f s (%.1f ns per loop, check %ld) sequential\nRESULT %.6f\n", n, reps, t,
               t * 1e9 / reps, check, t);
        free(a);
    }
    return 0;
}
