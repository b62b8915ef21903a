// Cycle (thesis 001 ch.7, sec. 7.3, Fig. 7.2): rings of 5 goroutines; each
// blocks, then wakes the next one of its ring; each ring's first goroutine
// holds the one token at the start (as the thesis's own Go version). Go
// has no park/unpark: a goroutine's permit is a channel of capacity 1.
// Load: rings per processor. Result: blocks per second, in Mops/s.
package main

import (
	"schedbench/common"
)

const ring = 5

type cycler struct {
	permit chan struct{}
	next   *cycler
}

func main() {
	procs, load, _ := common.Args()
	n := load * procs * ring
	cs := make([]cycler, n)
	counts := make([]common.Counter, n)
	for i := range cs {
		cs[i].permit = make(chan struct{}, 1)
		cs[i].next = &cs[i/ring*ring+(i+1)%ring]
	}
	start := make(chan struct{})
	for i := range cs {
		go func(c *cycler, count *common.Counter) {
			<-start
			for {
				<-c.permit
				c.next.permit <- struct{}{}
				count.Add(1)
			}
		}(&cs[i], &counts[i])
	}
	for i := 0; i < n; i += ring {
		cs[i].permit <- struct{}{} // one token per ring
	}
	common.Measure(start, counts)
}
