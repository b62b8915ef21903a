//! fib, Rayon: join(fib(n-1), fib(n-2)) above the cut-off, fib_seq below.
use forkjoinbench::*;

struct State {
    n: i64,
    cutoff: i64,
    result: i64,
}

fn fib(n: i64, cutoff: i64) -> i64 {
    if n < cutoff {
        return fib_seq(n);
    }
    let (a, b) = rayon::join(|| fib(n - 1, cutoff), || fib(n - 2, cutoff));
    a + b
}

fn main() {
    let o = parse(&[]);
    let mut s = State { n: o.param(FJ_FIB_N, FJ_FIB_N_TEST) as i64, cutoff: o.param(FJ_FIB_CUTOFF, FJ_FIB_CUTOFF_TEST) as i64, result: -1 };
    measure(&o, &mut s, |s| s.result = -1, |s| s.result = fib(s.n, s.cutoff), |o, s| fib_check(o, s.n, s.result));
}
