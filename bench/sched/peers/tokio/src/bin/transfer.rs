//! Transfer (thesis 001 ch.7, sec. 7.7, Fig. 7.14, Table 7.1): one task
//! leads at a time: it publishes a new leadership index and spins until
//! every other task has acknowledged it, then picks the next leader at
//! random and ("park") notifies all others. The others acknowledge, then
//! yield ("yield") or wait on their Notify until the next pick ("park";
//! woken before the next index appears, they yield until it does). Load:
//! tasks per processor. Result: mean time of one transfer in us; "dnf"
//! when one is not acknowledged within 5 s (the thesis's Tokio does not
//! complete the yield variant: the spinning leader holds its worker).
use schedbench::*;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, Semaphore};

const DNF_AFTER: Duration = Duration::from_secs(5);

#[repr(align(64))]
struct Member {
    seen: AtomicU64,
    permit: Notify,
}

struct Shared {
    members: Vec<Member>,
    lead_idx: AtomicU64,
    leader: AtomicUsize,
    done: AtomicBool,
    finished: AtomicBool,
    rng: Mutex<u64>, // taken by the leader only
    t_end: Mutex<Option<Instant>>,
    park: bool,
}

fn lead(s: &Shared, me: usize) {
    let idx = s.lead_idx.load(SeqCst) + 1;
    s.members[me].seen.store(idx, SeqCst);
    s.lead_idx.store(idx, SeqCst);
    if s.done.load(SeqCst) {
        *s.t_end.lock().unwrap() = Some(Instant::now());
        s.finished.store(true, SeqCst);
        return;
    }
    let start = Instant::now();
    for m in &s.members {
        while m.seen.load(SeqCst) != idx {
            if start.elapsed() > DNF_AFTER {
                dnf()
            }
        }
    }
    let next = (rand(&mut s.rng.lock().unwrap()) % s.members.len() as u64) as usize;
    s.leader.store(next, SeqCst);
    if s.park {
        for (i, m) in s.members.iter().enumerate() {
            if i != me {
                m.permit.notify_one();
            }
        }
    }
}

fn main() {
    let a = args(&["park", "yield"]);
    let n = a.load * a.procs;
    let rt = runtime(a.procs);
    let s = Arc::new(Shared {
        members: (0..n).map(|_| Member { seen: AtomicU64::new(0), permit: Notify::new() }).collect(),
        lead_idx: AtomicU64::new(0),
        leader: AtomicUsize::new(0),
        done: AtomicBool::new(false),
        finished: AtomicBool::new(false),
        rng: Mutex::new(42),
        t_end: Mutex::new(None),
        park: a.variant == "park",
    });
    let start = Arc::new(Semaphore::new(0));
    for me in 0..n {
        let (s, start) = (s.clone(), start.clone());
        rt.spawn(async move {
            start.acquire().await.unwrap().forget();
            while !s.finished.load(SeqCst) {
                if s.leader.load(SeqCst) == me {
                    lead(&s, me);
                    continue;
                }
                let idx = s.lead_idx.load(SeqCst);
                let seen = s.members[me].seen.swap(idx, SeqCst);
                if s.park && idx != seen {
                    s.members[me].permit.notified().await;
                } else {
                    tokio::task::yield_now().await;
                }
            }
        });
    }
    let t0 = Instant::now();
    start.add_permits(n);
    std::thread::sleep(duration());
    s.done.store(true, SeqCst);
    let wait = Instant::now();
    while !s.finished.load(SeqCst) {
        if wait.elapsed() > DNF_AFTER + Duration::from_secs(1) {
            dnf() // the leader's own bound normally fires first
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let transfers = s.lead_idx.load(SeqCst) - 1;
    let t_end = s.t_end.lock().unwrap().expect("set before finished");
    if transfers < 1 {
        dnf()
    }
    result(t_end.duration_since(t0).as_secs_f64() / transfers as f64 * 1e6)
}
