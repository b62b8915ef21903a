// Churn (thesis 001 ch.7, sec. 7.5, Fig. 7.8): each goroutine picks a
// random semaphore among (goroutines - processors) spots, Vs it, then Ps
// it. Go has no semaphore in the runtime: a spot is a channel whose
// buffer (one slot per goroutine, never full) holds the permits. As the
// thesis's programs, the first (goroutines - processors) goroutines skip
// their first V: the spots hold waiters from the start, so a V mostly
// hands off to one rather than only filling the buffer. Load: goroutines
// per processor. Result: iterations per second, in Mops/s.
package main

import (
	"schedbench/common"
)

func main() {
	procs, load, _ := common.Args()
	n := load * procs
	nspots := max(n-procs, 1)
	spots := make([]chan struct{}, nspots)
	for i := range spots {
		spots[i] = make(chan struct{}, n)
	}
	counts := make([]common.Counter, n)
	start := make(chan struct{})
	for i := range counts {
		go func(c *common.Counter, rng uint64, skip bool) {
			<-start
			for {
				s := spots[common.Rand(&rng)%uint64(nspots)]
				if !skip {
					s <- struct{}{}
				}
				skip = false
				<-s
				c.Add(1)
			}
		}(&counts[i], uint64(i+1), i < nspots)
	}
	common.Measure(start, counts)
}
