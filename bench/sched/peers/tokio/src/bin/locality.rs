//! Locality (thesis 001 ch.7, sec. 7.6, Fig. 7.11): churn with work. Each
//! iteration a task increments 64 random cells of an 8 KiB array, then
//! sends an array through a random spot and receives one from it. A spot
//! is a FIFO of arrays plus a tokio::sync::Semaphore counting them (tokio
//! has no multi-consumer channel): send = push, add_permits; receive =
//! acquire, pop. "share": the task adopts the array it received;
//! "noshare": it keeps its own. Load: tasks per processor. Result:
//! iterations per second, in Mops/s.
use schedbench::*;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::Semaphore;

const WSIZE: usize = 1024;
const WCNT: usize = 64;
type Array = Box<[u64; WSIZE]>;

struct Spot {
    arrays: Mutex<VecDeque<Array>>,
    count: Semaphore,
}

impl Spot {
    async fn exchange(&self, mine: Array) -> Array {
        self.arrays.lock().unwrap().push_back(mine);
        self.count.add_permits(1);
        self.count.acquire().await.unwrap().forget();
        self.arrays.lock().unwrap().pop_front().expect("a permit is an array")
    }
}

fn main() {
    let a = args(&["share", "noshare"]);
    let share = a.variant == "share";
    let n = a.load * a.procs;
    let nspots = n.saturating_sub(a.procs).max(1);
    let rt = runtime(a.procs);
    let spots: Arc<Vec<Spot>> = Arc::new(
        (0..nspots).map(|_| Spot { arrays: Mutex::new(VecDeque::with_capacity(n)), count: Semaphore::new(0) }).collect(),
    );
    let counts: Arc<Vec<Counter>> = Arc::new((0..n).map(|_| Counter::default()).collect());
    let start = Arc::new(Semaphore::new(0));
    for i in 0..n {
        let (spots, counts, start) = (spots.clone(), counts.clone(), start.clone());
        rt.spawn(async move {
            let mut rng = i as u64 + 1;
            let mut array: Array = Box::new([0; WSIZE]);
            let mut token: Array = Box::new([0; WSIZE]); // what "noshare" sends
            start.acquire().await.unwrap().forget();
            loop {
                for _ in 0..WCNT {
                    array[(rand(&mut rng) % WSIZE as u64) as usize] += 1;
                }
                let s = &spots[(rand(&mut rng) % nspots as u64) as usize];
                if share {
                    array = s.exchange(array).await;
                } else {
                    token = s.exchange(token).await;
                }
                counts[i].bump();
            }
        });
    }
    measure_mops(&start, n, &counts)
}
