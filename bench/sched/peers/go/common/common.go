// Package common: what the Go versions of the thesis chapter 7 benchmarks
// share, as bench/sched/cfa/common.h does for cfa-lite: the command line
// (processors, load per processor, optional variant), GOMAXPROCS =
// processors, the duration (env BENCH_SECONDS, default 1), a per-goroutine
// PRNG, and the single last stdout line "RESULT <number>" or "RESULT dnf"
// followed by an immediate exit (blocked goroutines are not drained).
package common

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Args parses "processors load [variant]" and sets GOMAXPROCS.
func Args(variants ...string) (procs, load int, variant string) {
	bad := len(os.Args) < 3
	if !bad {
		var e1, e2 error
		procs, e1 = strconv.Atoi(os.Args[1])
		load, e2 = strconv.Atoi(os.Args[2])
		bad = e1 != nil || e2 != nil || procs < 1 || load < 1
	}
	if len(variants) > 0 {
		bad = bad || len(os.Args) < 4
		if !bad {
			variant, bad = os.Args[3], true
			for _, v := range variants {
				bad = bad && v != variant
			}
		}
	}
	if bad {
		fmt.Fprintln(os.Stderr, "usage:", os.Args[0], "processors load-per-processor", variants)
		os.Exit(2)
	}
	runtime.GOMAXPROCS(procs)
	return
}

// Duration is BENCH_SECONDS (default 1 s).
func Duration() time.Duration {
	s, err := strconv.ParseFloat(os.Getenv("BENCH_SECONDS"), 64)
	if err != nil || s <= 0 {
		s = 1
	}
	return time.Duration(s * 1e9)
}

// Threads is BENCH_THREADS (default one million): how many spawn creates.
func Threads() int {
	n, err := strconv.Atoi(os.Getenv("BENCH_THREADS"))
	if err != nil || n <= 0 {
		n = 1000000
	}
	return n
}

// ResidentBytes is VmRSS + VmPTE of the process, in bytes.
func ResidentBytes() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	var kb int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && (fields[0] == "VmRSS:" || fields[0] == "VmPTE:") {
			v, _ := strconv.ParseInt(fields[1], 10, 64)
			kb += v
		}
	}
	return kb * 1024
}

// Rand is xorshift64*; the state must not be 0.
func Rand(s *uint64) uint64 {
	*s ^= *s >> 12
	*s ^= *s << 25
	*s ^= *s >> 27
	return *s * 2685821657736338717
}

func Result(v float64) {
	fmt.Printf("RESULT %.6g\n", v)
	os.Exit(0)
}

func Dnf() {
	fmt.Println("RESULT dnf")
	os.Exit(0)
}

// Counter is one goroutine's count, alone on its cache line.
type Counter struct {
	atomic.Int64
	_ [56]byte
}

// Measure opens the start gate, sleeps for the duration and prints the
// sum of the counts per second, in millions.
func Measure(start chan struct{}, counts []Counter) {
	t0 := time.Now()
	close(start)
	time.Sleep(Duration())
	var ops int64
	for i := range counts {
		ops += counts[i].Load()
	}
	Result(float64(ops) / time.Since(t0).Seconds() / 1e6)
}
