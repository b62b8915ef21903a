//! Heat diffusion, Rayon: per step, par_chunks_mut over the interior rows
//! with_min_len(grain); the step's end (every row written) is its barrier.
use forkjoinbench::*;
use rayon::prelude::*;

fn run(h: &mut Heat) {
    let (n, grain) = (h.n, h.grain);
    for t in 0..h.steps {
        let (src, dst) = h.step_grids(t);
        dst[n..(n - 1) * n].par_chunks_mut(n).with_min_len(grain).enumerate().for_each(|(r, row)| heat_row(src, n, r + 1, row));
    }
}

fn main() {
    let o = parse(&[]);
    let mut h = Heat::new(&o);
    measure(&o, &mut h, Heat::prepare, run, Heat::check);
}
