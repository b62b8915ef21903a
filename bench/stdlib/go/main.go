// The Go peers of bench/stdlib/chan_bench.c, the same programs on Go
// channels:
//
//	go_bench <pingpong|mpmc> <GOMAXPROCS> <iterations>
//
// prints "RESULT <ns per operation>" (bench/README.md) and checks what it
// received.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

const producers, consumers, slots = 4, 4, 64

func fail(what string) {
	fmt.Fprintln(os.Stderr, "go_bench:", what)
	os.Exit(1)
}

// Two goroutines, two unbuffered channels: one round trip per operation.
func pingpong(n int64) time.Duration {
	ping, pong := make(chan int64), make(chan int64)
	go func() {
		for i := int64(0); i < n; i++ {
			pong <- (<-ping) + 1
		}
	}()
	t0 := time.Now()
	for i := int64(0); i < n; i++ {
		ping <- i
		if <-pong != i+1 {
			fail("pingpong: wrong value")
		}
	}
	return time.Since(t0)
}

// 4 producers, 4 consumers, one channel of 64 slots: one value per operation.
func mpmc(n int64) time.Duration {
	q := make(chan int64, slots)
	var sum atomic.Int64
	var prod, cons sync.WaitGroup
	t0 := time.Now()
	for c := 0; c < consumers; c++ {
		cons.Add(1)
		go func() {
			defer cons.Done()
			s := int64(0)
			for v := range q {
				s += v
			}
			sum.Add(s)
		}()
	}
	for p := 0; p < producers; p++ {
		prod.Add(1)
		go func(id int64) {
			defer prod.Done()
			for i := id; i < n; i += producers {
				q <- i
			}
		}(int64(p))
	}
	prod.Wait()
	close(q)
	cons.Wait()
	d := time.Since(t0)
	if sum.Load() != n*(n-1)/2 {
		fail("mpmc: lost or duplicated values")
	}
	return d
}

func main() {
	if len(os.Args) != 4 {
		fail("usage: go_bench pingpong|mpmc GOMAXPROCS iterations")
	}
	procs, err1 := strconv.Atoi(os.Args[2])
	n, err2 := strconv.ParseInt(os.Args[3], 10, 64)
	if err1 != nil || err2 != nil || procs < 1 || n < 1 {
		fail("bad GOMAXPROCS or iterations")
	}
	runtime.GOMAXPROCS(procs)
	var d time.Duration
	switch os.Args[1] {
	case "pingpong":
		d = pingpong(n)
	case "mpmc":
		d = mpmc(n)
	default:
		fail("unknown benchmark")
	}
	fmt.Printf("RESULT %.1f\n", float64(d.Nanoseconds())/float64(n))
}
