// Yield (thesis 001 ch.7, sec. 7.4, Fig. 7.5): goroutines that only yield
// (runtime.Gosched). Load: goroutines per processor. Result: yields per
// second, in Mops/s.
package main

import (
	"runtime"

	"schedbench/common"
)

func main() {
	procs, load, _ := common.Args()
	counts := make([]common.Counter, load*procs)
	start := make(chan struct{})
	for i := range counts {
		go func(c *common.Counter) {
			<-start
			for {
				runtime.Gosched()
				c.Add(1)
			}
		}(&counts[i])
	}
	common.Measure(start, counts)
}
