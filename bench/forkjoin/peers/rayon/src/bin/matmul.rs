//! Matrix multiplication, Rayon. forkjoin: join of the two halves of the
//! row range down to the grain; parfor: par_chunks_mut over the rows of C
//! with_min_len(grain) (Rayon's adaptive splitting above that).
use forkjoinbench::*;
use rayon::prelude::*;

fn forkjoin(m: &Matmul, first: usize, c: &mut [f64]) {
    let rows = c.len() / m.n;
    if rows <= m.grain {
        return m.rows(first, c);
    }
    let (lo, hi) = c.split_at_mut(rows / 2 * m.n);
    rayon::join(|| forkjoin(m, first, lo), || forkjoin(m, first + rows / 2, hi));
}

fn main() {
    let o = parse(&["forkjoin", "parfor"]);
    let mut m = Matmul::new(&o);
    let run: fn(&mut Matmul) = if o.variant == "forkjoin" {
        |m| {
            let mut c = std::mem::take(&mut m.c);
            forkjoin(m, 0, &mut c);
            m.c = c;
        }
    } else {
        |m| {
            let mut c = std::mem::take(&mut m.c);
            c.par_chunks_mut(m.n).with_min_len(m.grain).enumerate().for_each(|(i, row)| m.rows(i, row));
            m.c = c;
        }
    };
    measure(&o, &mut m, Matmul::prepare, run, Matmul::check);
}
