//! Churn (thesis 001 ch.7, sec. 7.5, Fig. 7.8): each task picks a random
//! tokio::sync::Semaphore among (tasks - processors) spots, Vs it
//! (add_permits), then Ps it (acquire). As the thesis's programs, the
//! first (tasks - processors) tasks skip their first V: the spots hold
//! waiters from the start, so a V mostly hands its permit to one rather
//! than only adding it. Load: tasks per processor. Result: iterations per
//! second, in Mops/s.
use schedbench::*;
use std::sync::Arc;
use tokio::sync::Semaphore;

fn main() {
    let a = args(&[]);
    let n = a.load * a.procs;
    let nspots = n.saturating_sub(a.procs).max(1);
    let rt = runtime(a.procs);
    let spots: Arc<Vec<Semaphore>> = Arc::new((0..nspots).map(|_| Semaphore::new(0)).collect());
    let counts: Arc<Vec<Counter>> = Arc::new((0..n).map(|_| Counter::default()).collect());
    let start = Arc::new(Semaphore::new(0));
    for i in 0..n {
        let (spots, counts, start) = (spots.clone(), counts.clone(), start.clone());
        rt.spawn(async move {
            let mut rng = i as u64 + 1;
            let mut skip = i < nspots;
            start.acquire().await.unwrap().forget();
            loop {
                let s = &spots[(rand(&mut rng) % nspots as u64) as usize];
                if !skip {
                    s.add_permits(1);
                }
                skip = false;
                s.acquire().await.unwrap().forget();
                counts[i].bump();
            }
        });
    }
    measure_mops(&start, n, &counts)
}
