//! Spawn (issue #24), as bench/sched/cfa/spawn.cfa: create N tasks
//! (default one million, env BENCH_THREADS) that each wait on a oneshot
//! channel of their own, then wake (send) and join (JoinHandle) them all.
//! Variant "time": microseconds per task from the first spawn to the last
//! join; "memory": resident memory per waiting task in KB (VmRSS + VmPTE
//! growth), read once every task has announced itself.
use schedbench::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn main() {
    let a = args(&["time", "memory"]);
    let n = threads();
    let rt = runtime(a.procs);
    let parked = Arc::new(AtomicUsize::new(0));
    let mut wakes = Vec::with_capacity(n);
    let mut joins = Vec::with_capacity(n);
    let before = resident_bytes();
    let t0 = std::time::Instant::now();
    for _ in 0..n {
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let parked = parked.clone();
        wakes.push(tx);
        joins.push(rt.spawn(async move {
            parked.fetch_add(1, Ordering::Relaxed);
            rx.await.ok();
        }));
    }
    while parked.load(Ordering::Relaxed) != n {
        std::thread::yield_now();
    }
    let during = resident_bytes();
    for w in wakes {
        w.send(()).ok();
    }
    rt.block_on(async {
        for j in joins {
            j.await.unwrap();
        }
    });
    let us = t0.elapsed().as_secs_f64() / n as f64 * 1e6;
    let kb = (during - before) as f64 / 1024.0 / n as f64;
    eprintln!("spawn: {n} tasks, {us:.3} us/task, {kb:.3} KB/waiting task");
    result(if a.variant == "memory" { kb } else { us })
}
