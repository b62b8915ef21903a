//! Yield (thesis 001 ch.7, sec. 7.4, Fig. 7.5): tasks that only yield
//! (tokio::task::yield_now). Load: tasks per processor. Result: yields
//! per second, in Mops/s.
use schedbench::*;
use std::sync::Arc;
use tokio::sync::Semaphore;

fn main() {
    let a = args(&[]);
    let n = a.load * a.procs;
    let rt = runtime(a.procs);
    let counts: Arc<Vec<Counter>> = Arc::new((0..n).map(|_| Counter::default()).collect());
    let start = Arc::new(Semaphore::new(0));
    for i in 0..n {
        let (counts, start) = (counts.clone(), start.clone());
        rt.spawn(async move {
            start.acquire().await.unwrap().forget();
            loop {
                tokio::task::yield_now().await;
                counts[i].bump();
            }
        });
    }
    measure_mops(&start, n, &counts)
}
