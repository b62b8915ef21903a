// Cycle (thesis 001 ch.7, sec. 7.3, Fig. 7.2): rings of 5 goroutines; each
// wakes the next one of its ring, then blocks. Go has no park/unpark: a
// goroutine's permit is a channel of capacity 1. Load: rings per
// processor. Result: blocks per second, in Mops/s.
package main

import (
	"sync/atomic"
	"time"

	"schedbench/common"
)

const ring = 5

type cycler struct {
	permit chan struct{}
	next   *cycler
	count  atomic.Int64
	_      [64]byte
}

func main() {
	procs, load, _ := common.Args()
	n := load * procs * ring
	cs := make([]cycler, n)
	for i := range cs {
		cs[i].permit = make(chan struct{}, 1)
		cs[i].next = &cs[i/ring*ring+(i+1)%ring]
	}
	start := make(chan struct{})
	for i := range cs {
		go func(c *cycler) {
			<-start
			for {
				c.next.permit <- struct{}{}
				<-c.permit
				c.count.Add(1)
			}
		}(&cs[i])
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
