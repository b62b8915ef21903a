// Yield (thesis 001 ch.7, sec. 7.4, Fig. 7.5): goroutines that only yield
// (runtime.Gosched). Load: goroutines per processor. Result: yields per
// second, in Mops/s.
package main

import (
	"runtime"
	"sync/atomic"
	"time"

	"schedbench/common"
)

type yielder struct {
	count atomic.Int64
	_     [64]byte
}

func main() {
	procs, load, _ := common.Args()
	ys := make([]yielder, load*procs)
	start := make(chan struct{})
	for i := range ys {
		go func(y *yielder) {
			<-start
			for {
				runtime.Gosched()
				y.count.Add(1)
			}
		}(&ys[i])
	}
	t0 := time.Now()
	close(start)
	time.Sleep(common.Duration())
	var ops int64
	for i := range ys {
		ops += ys[i].count.Load()
	}
	common.Result(float64(ops) / time.Since(t0).Seconds() / 1e6)
}
