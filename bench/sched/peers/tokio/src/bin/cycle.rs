//! Cycle (thesis 001 ch.7, sec. 7.3, Fig. 7.2): rings of 5 tasks; each
//! waits on its own Notify (a single permit, as park/unpark), then
//! notifies the next one of its ring; each ring's first task holds the one
//! token at the start (as the thesis's own programs). Load: rings per
//! processor. Result: waits per second, in Mops/s.
use schedbench::*;
use std::sync::Arc;
use tokio::sync::{Notify, Semaphore};

const RING: usize = 5;

fn main() {
    let a = args(&[]);
    let n = a.load * a.procs * RING;
    let rt = runtime(a.procs);
    let permits: Arc<Vec<Notify>> = Arc::new((0..n).map(|_| Notify::new()).collect());
    let counts: Arc<Vec<Counter>> = Arc::new((0..n).map(|_| Counter::default()).collect());
    let start = Arc::new(Semaphore::new(0));
    for i in 0..n {
        let (permits, counts, start) = (permits.clone(), counts.clone(), start.clone());
        rt.spawn(async move {
            start.acquire().await.unwrap().forget();
            let next = i / RING * RING + (i + 1) % RING;
            loop {
                permits[i].notified().await;
                permits[next].notify_one();
                counts[i].bump();
            }
        });
    }
    for i in (0..n).step_by(RING) {
        permits[i].notify_one(); // one token per ring
    }
    measure_mops(&start, n, &counts)
}
