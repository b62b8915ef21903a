/* fib.h: the fib workload (spawn-heavy): fib(N) by the doubly recursive
 * definition. The parallel programs spawn fib(n-1), compute fib(n-2)
 * themselves and join, down to n < CUTOFF, where they call fib_seq; the
 * sequential program calls fib_seq(N) directly. Checked against fib(N)
 * computed by iteration. */
#ifndef BENCH_FORKJOIN_FIB_H
#define BENCH_FORKJOIN_FIB_H
#include "fj.h"

static int fib_n, fib_cutoff;
static int64_t fib_result;

static inline int64_t fib_seq(int n) { return n < 2 ? n : fib_seq(n - 1) + fib_seq(n - 2); }

static inline void fib_setup(int argc, char **argv)
{
    fj_parse(argc, argv, NULL);
    fib_n = FJ_PARAM(FJ_FIB_N);
    fib_cutoff = FJ_PARAM(FJ_FIB_CUTOFF);
}

static inline void fib_prepare(void) { fib_result = -1; }

static inline void fib_check(void)
{
    int64_t a = 0, b = 1;
    for (int i = 0; i < fib_n; i++) {
        int64_t next = a + b;
        a = b;
        b = next;
    }
    if (fib_result != a)
        fj_fail("fib(%d) = %lld, expected %lld", fib_n, (long long)fib_result, (long long)a);
}
#endif
