// Churn (thesis 001 ch.7, sec. 7.5, Fig. 7.8): each goroutine picks a
// random semaphore among (goroutines - processors) spots, Vs it, then Ps
// it. Go has no semaphore in the runtime: a spot is a channel whose
// buffer (one slot per goroutine, never full) holds the permits. Load:
// goroutines per processor. Result: iterations per second, in Mops/s.
package main

import (
	"sync/atomic"
	"time"

	"schedbench/common"
)

type churner struct {
	count atomic.Int64
	_     [64]byte
}

func main() {
	procs, load, _ := common.Args()
	n := load * procs
	nspots := max(n-procs, 1)
	spots := make([]chan struct{}, nspots)
	for i := range spots {
		spots[i] = make(chan struct{}, n)
	}
	cs := make([]churner, n)
	start := make(chan struct{})
	for i := range cs {
		go func(c *churner, rng uint64) {
			<-start
			for {
				s := spots[common.Rand(&rng)%uint64(nspots)]
				s <- struct{}{}
				<-s
				c.count.Add(1)
			}
		}(&cs[i], uint64(i+1))
	}
	t0 := time.Now()
	close(start)
	time.Sleep(common.Duration())
	var ops int64
	for i := range cs {
		ops += cs[i].count.Load()
	}
	common.Result(float64(ops) / time.Since(t0).Seconds() / 1e6)
}
