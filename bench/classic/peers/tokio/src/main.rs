//! The first thesis's micro-benchmarks on Tokio, the peers of
//! bench/classic/cfa/classic.cfa where Tokio has an equivalent for tasks,
//! on a multi-threaded runtime with one worker: yield
//! (task::yield_now), mutex1/2/4 (lock of 1, 2 or 4 tokio::sync::Mutex,
//! the task-aware mutex), signal (two tasks alternating under one Mutex,
//! each signalling the other's Notify: a monitor's signal and wait),
//! create (spawn of an empty task and await of its JoinHandle).
//! No coroutines and no external scheduling: ctxswitch and waitfor are
//! cfa-lite only. Prints "RESULT <ns per operation>".
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{Mutex, Notify};

const BATCH: u64 = 1024;

fn duration() -> Duration {
    let s = std::env::var("BENCH_SECONDS").ok().and_then(|v| v.parse::<f64>().ok()).filter(|s| *s > 0.0);
    Duration::from_secs_f64(s.unwrap_or(1.0))
}

fn result(ns: f64) -> ! {
    println!("RESULT {:.6}", ns);
    std::process::exit(0)
}

async fn time_loop<F, Fut>(mut op: F) -> f64
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let t0 = Instant::now();
    let end = t0 + duration();
    let mut ops = 0u64;
    loop {
        for _ in 0..BATCH {
            op().await;
        }
        ops += BATCH;
        if Instant::now() >= end {
            break;
        }
    }
    t0.elapsed().as_nanos() as f64 / ops as f64
}

async fn locked(m: &[Mutex<u64>], n: usize) {
    let mut guards = Vec::with_capacity(4);
    for x in &m[..n] {
        guards.push(x.lock().await);
    }
    *guards[0] += 1;
}

fn main() {
    let bench = std::env::args().nth(1).unwrap_or_default();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let ns = rt.block_on(async move {
        tokio::spawn(async move {
            let m: &'static [Mutex<u64>] = Box::leak((0..4).map(|_| Mutex::new(0)).collect());
            match bench.as_str() {
                "yield" => time_loop(|| tokio::task::yield_now()).await,
                "mutex1" | "mutex2" | "mutex4" => {
                    let n = (bench.as_bytes()[5] - b'0') as usize;
                    time_loop(|| locked(m, n)).await
                }
                "create" => time_loop(|| async { tokio::spawn(async {}).await.unwrap() }).await,
                "signal" => {
                    // A monitor's signal and wait, Tokio style: the two tasks
                    // share a Mutex (the monitor, holding the count) and each
                    // has a Notify (its condition). Each signals the other
                    // while holding the lock, lets go, and waits.
                    let m = Arc::new(Mutex::new(0u64));
                    let (a, b) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
                    for (mine, other) in [(a.clone(), b.clone()), (b.clone(), a.clone())] {
                        let m = m.clone();
                        tokio::spawn(async move {
                            loop {
                                let mut handoffs = m.lock().await;
                                *handoffs += 1;
                                other.notify_one();
                                drop(handoffs);
                                mine.notified().await;
                            }
                        });
                    }
                    let t0 = Instant::now();
                    tokio::time::sleep(duration()).await;
                    let handoffs = *m.lock().await;
                    t0.elapsed().as_nanos() as f64 / handoffs as f64
                }
                _ => {
                    eprintln!("usage: classic yield|mutex1|mutex2|mutex4|signal|create");
                    std::process::exit(2)
                }
            }
        })
        .await
        .unwrap()
    });
    result(ns)
}
