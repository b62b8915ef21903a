// The first thesis's micro-benchmarks in Go, the peers of
// bench/classic/cfa/classic.cfa where Go has an equivalent, with
// GOMAXPROCS=1: yield (runtime.Gosched of the only goroutine), mutex1/2/4
// (sync.Mutex Lock/Unlock of 1, 2 or 4 mutexes around the same work),
// signal (two goroutines alternating under one mutex by sync.Cond Signal +
// Wait), create (go + WaitGroup wait for an empty goroutine). Go has no
// coroutines and no external scheduling: ctxswitch and waitfor are
// cfa-lite only. Prints "RESULT <ns per operation>".
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

const batch = 1024

var mx [4]sync.Mutex
var shared int64

func duration() time.Duration {
	s, err := strconv.ParseFloat(os.Getenv("BENCH_SECONDS"), 64)
	if err != nil || s <= 0 {
		s = 1
	}
	return time.Duration(s * 1e9)
}

func result(ns float64) {
	fmt.Printf("RESULT %.6g\n", ns)
	os.Exit(0)
}

func timeLoop(op func()) {
	t0 := time.Now()
	end := t0.Add(duration())
	ops := 0
	for {
		for i := 0; i < batch; i++ {
			op()
		}
		ops += batch
		if time.Now().After(end) {
			break
		}
	}
	result(float64(time.Since(t0).Nanoseconds()) / float64(ops))
}

func locked(n int) {
	for i := 0; i < n; i++ {
		mx[i].Lock()
	}
	shared++
	for i := n - 1; i >= 0; i-- {
		mx[i].Unlock()
	}
}

func main() {
	runtime.GOMAXPROCS(1)
	b := ""
	if len(os.Args) > 1 {
		b = os.Args[1]
	}
	switch b {
	case "yield":
		timeLoop(runtime.Gosched)
	case "mutex1", "mutex2", "mutex4":
		n := int(b[5] - '0')
		timeLoop(func() { locked(n) })
	case "create":
		var wg sync.WaitGroup
		timeLoop(func() {
			wg.Add(1)
			go func() { wg.Done() }()
			wg.Wait()
		})
	case "signal":
		cond := sync.NewCond(&mx[0])
		var handoffs int64
		passer := func() {
			mx[0].Lock()
			for {
				handoffs++
				cond.Signal()
				cond.Wait()
			}
		}
		go passer()
		go passer()
		t0 := time.Now()
		time.Sleep(duration())
		mx[0].Lock()
		result(float64(time.Since(t0).Nanoseconds()) / float64(handoffs))
	}
	fmt.Fprintln(os.Stderr, "usage:", os.Args[0], "yield|mutex1|mutex2|mutex4|signal|create")
	os.Exit(2)
}
