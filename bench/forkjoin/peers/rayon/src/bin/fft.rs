//! FFT, Rayon: join of the two half-size transforms above the cut-off,
//! then the butterflies; fft_seq below.
use forkjoinbench::*;

fn fft(f: &Fft, input: &[Complex], out: &mut [Complex], s: usize) {
    let n = out.len();
    if n <= f.cutoff {
        return fft_seq(&f.twiddle, input, out, s);
    }
    let (lo, hi) = out.split_at_mut(n / 2);
    rayon::join(|| fft(f, input, lo, 2 * s), || fft(f, &input[s..], hi, 2 * s));
    fft_combine(&f.twiddle, out, s);
}

fn main() {
    let o = parse(&[]);
    let mut f = Fft::new(&o);
    measure(&o, &mut f, Fft::prepare, |f| {
        let mut out = std::mem::take(&mut f.out);
        fft(f, &f.input, &mut out, 1);
        f.out = out;
    }, Fft::check);
}
