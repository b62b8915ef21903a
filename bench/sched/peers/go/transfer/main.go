// Transfer (thesis 001 ch.7, sec. 7.7, Fig. 7.14, Table 7.1): one
// goroutine leads at a time: it publishes a new leadership index and
// spins until every other goroutine has acknowledged it, then picks the
// next leader at random and ("park") wakes all others. The others
// acknowledge, then yield ("yield") or block on their permit (a channel
// of capacity 1) until the next pick ("park"; woken before the next index
// appears, they yield until it does). Load: goroutines per processor.
// Result: mean time of one transfer in us; "dnf" when one is not
// acknowledged within 5 s.
package main

import (
	"runtime"
	"sync/atomic"
	"time"

	"schedbench/common"
)

const dnfAfter = 5 * time.Second

type member struct {
	seen   atomic.Int64
	permit chan struct{}
	_      [64]byte
}

var (
	members        []member
	leadIdx        atomic.Int64
	leader         atomic.Int64
	done, finished atomic.Bool
	rng            uint64 = 42 // touched by the leader only
	park           bool
	t0, tEnd       time.Time
)

func lead(me int) {
	idx := leadIdx.Load() + 1
	members[me].seen.Store(idx)
	leadIdx.Store(idx)
	if done.Load() {
		tEnd = time.Now()
		finished.Store(true)
		return
	}
	start := time.Now()
	for i := range members {
		for members[i].seen.Load() != idx {
			if time.Since(start) > dnfAfter {
				common.Dnf()
			}
		}
	}
	leader.Store(int64(common.Rand(&rng) % uint64(len(members))))
	if park {
		for i := range members {
			if i != me {
				select {
				case members[i].permit <- struct{}{}:
				default:
				}
			}
		}
	}
}

func memberMain(me int, start chan struct{}) {
	<-start
	for !finished.Load() {
		if leader.Load() == int64(me) {
			lead(me)
			continue
		}
		idx := leadIdx.Load()
		seen := members[me].seen.Swap(idx)
		if park && idx != seen {
			<-members[me].permit
		} else {
			runtime.Gosched()
		}
	}
}

func main() {
	procs, load, variant := common.Args("park", "yield")
	park = variant == "park"
	members = make([]member, load*procs)
	for i := range members {
		members[i].permit = make(chan struct{}, 1)
	}
	start := make(chan struct{})
	for i := range members {
		go memberMain(i, start)
	}
	t0 = time.Now()
	close(start)
	time.Sleep(common.Duration())
	done.Store(true)
	for w := time.Now(); !finished.Load(); time.Sleep(time.Millisecond) {
		if time.Since(w) > dnfAfter+time.Second { // the leader's own bound normally fires first
			common.Dnf()
		}
	}
	transfers := leadIdx.Load() - 1
	if transfers < 1 {
		common.Dnf()
	}
	common.Result(tEnd.Sub(t0).Seconds() / float64(transfers) * 1e6)
}
