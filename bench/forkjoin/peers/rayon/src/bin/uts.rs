//! UTS, Rayon: a node's children are a parallel iterator over their
//! indices (Rayon splits it with join down to single children), each
//! mapped to its subtree's count and summed.
use forkjoinbench::*;
use rayon::prelude::*;

fn visit(u: &Uts, n: &UtsNode) -> UtsCount {
    let k = u.children(n);
    let me = UtsCount::node(n, k);
    if k == 0 {
        return me;
    }
    me.add((0..k).into_par_iter().map(|i| visit(u, &Uts::child(n, i))).reduce(UtsCount::default, UtsCount::add))
}

fn main() {
    let o = parse(&["T1", "T3"]);
    let mut u = Uts::new(&o);
    measure(&o, &mut u, Uts::prepare, |u| u.result = visit(u, &u.root), Uts::check);
}
