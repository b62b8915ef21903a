// Spawn (issue #24), as bench/sched/cfa/spawn.cfa: create N goroutines
// (default one million, env BENCH_THREADS) that each block on a channel
// of their own, then wake (close) and join (sync.WaitGroup) them all.
// Variant "time": microseconds per goroutine from the first creation to
// the last join; "memory": resident memory per parked goroutine in KB
// (VmRSS + VmPTE growth), read once every goroutine has announced itself.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"schedbench/common"
)

func main() {
	_, _, variant := common.Args("time", "memory")
	n := common.Threads()
	wakes := make([]chan struct{}, n)
	var parked atomic.Int64
	var joined sync.WaitGroup
	before := common.ResidentBytes()
	t0 := time.Now()
	joined.Add(n)
	for i := range wakes {
		wakes[i] = make(chan struct{})
		go func(wake chan struct{}) {
			parked.Add(1)
			<-wake
			joined.Done()
		}(wakes[i])
	}
	for parked.Load() != int64(n) {
		runtime.Gosched()
	}
	during := common.ResidentBytes()
	for _, w := range wakes {
		close(w)
	}
	joined.Wait()
	elapsed := time.Since(t0).Seconds()
	perThreadUs := elapsed / float64(n) * 1e6
	kb := float64(during-before) / 1024 / float64(n)
	fmt.Fprintf(os.Stderr, "spawn: %d goroutines, %.3f us/goroutine, %.3f KB/parked goroutine\n", n, perThreadUs, kb)
	if variant == "memory" {
		common.Result(kb)
	}
	common.Result(perThreadUs)
}
