//! What the Tokio versions of the thesis chapter 7 benchmarks share, as
//! bench/sched/cfa/common.h does for cfa-lite: the command line
//! (processors, load per processor, optional variant), a multi-threaded
//! runtime with worker_threads = processors, the duration (env
//! BENCH_SECONDS, default 1), a per-task PRNG, and the single last stdout
//! line "RESULT <number>" or "RESULT dnf" followed by an immediate exit
//! (blocked tasks are not drained). The measuring thread is the program's
//! main OS thread, outside the runtime, so spinning tasks cannot stop it.
use std::time::Duration;

pub struct Args {
    pub procs: usize,
    pub load: usize,
    pub variant: String,
}

pub fn args(variants: &[&str]) -> Args {
    let a: Vec<String> = std::env::args().collect();
    let num = |i: usize| a.get(i).and_then(|s| s.parse::<usize>().ok()).filter(|&v| v >= 1);
    let variant = a.get(3).cloned().unwrap_or_default();
    match (num(1), num(2)) {
        (Some(procs), Some(load)) if variants.is_empty() || variants.contains(&variant.as_str()) => {
            Args { procs, load, variant }
        }
        _ => {
            eprintln!("usage: {} processors load-per-processor {:?}", a[0], variants);
            std::process::exit(2)
        }
    }
}

pub fn runtime(procs: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(procs).build().expect("tokio runtime")
}

pub fn duration() -> Duration {
    let s = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse::<f64>().ok()).filter(|&s| s > 0.0);
    Duration::from_secs_f64(s.unwrap_or(1.0))
}

/// BENCH_THREADS (default one million): how many tasks spawn creates.
pub fn threads() -> usize {
    std::env::var("BENCH_THREADS").ok().and_then(|s| s.parse::<usize>().ok()).filter(|&n| n > 0).unwrap_or(1_000_000)
}

/// VmRSS + VmPTE of the process, in bytes.
pub fn resident_bytes() -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: i64 = status
        .lines()
        .filter(|l| l.starts_with("VmRSS:") || l.starts_with("VmPTE:"))
        .filter_map(|l| l.split_whitespace().nth(1).and_then(|v| v.parse::<i64>().ok()))
        .sum();
    kb * 1024
}

/// xorshift64*; the state must not be 0.
pub fn rand(s: &mut u64) -> u64 {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    s.wrapping_mul(2685821657736338717)
}

/// A task's counter, alone on its cache line.
#[repr(align(64))]
#[derive(Default)]
pub struct Counter(pub std::sync::atomic::AtomicU64);

impl Counter {
    pub fn bump(&self) {
        use std::sync::atomic::Ordering::Relaxed;
        self.0.store(self.0.load(Relaxed) + 1, Relaxed);
    }
}

/// Sleeps for the duration after `start` opened the gate, then prints
/// the sum of `counts` per second in millions.
pub fn measure_mops(start: &tokio::sync::Semaphore, tasks: usize, counts: &[Counter]) -> ! {
    let t0 = std::time::Instant::now();
    start.add_permits(tasks);
    std::thread::sleep(duration());
    let ops: u64 = counts.iter().map(|c| c.0.load(std::sync::atomic::Ordering::Relaxed)).sum();
    result(ops as f64 / t0.elapsed().as_secs_f64() / 1e6)
}

pub fn result(v: f64) -> ! {
    use std::io::Write;
    println!("RESULT {v:.6}");
    std::io::stdout().flush().ok();
    std::process::exit(0)
}

pub fn dnf() -> ! {
    use std::io::Write;
    println!("RESULT dnf");
    std::io::stdout().flush().ok();
    std::process::exit(0)
}
