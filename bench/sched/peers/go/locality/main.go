// Locality (thesis 001 ch.7, sec. 7.6, Fig. 7.11): churn with work. Each
// iteration a goroutine increments 64 random cells of an 8 KiB array, then
// sends an array through a random spot (a channel; goroutines - processors
// spots) and receives one from it. "share": it adopts the array it
// received; "noshare": it keeps its own. Load: goroutines per processor.
// Result: iterations per second, in Mops/s.
package main

import (
	"schedbench/common"
)

const wsize, wcnt = 1024, 64

func main() {
	procs, load, variant := common.Args("share", "noshare")
	share := variant == "share"
	n := load * procs
	nspots := max(n-procs, 1)
	spots := make([]chan *[wsize]uint64, nspots)
	for i := range spots {
		spots[i] = make(chan *[wsize]uint64, n) // never full: n arrays in all
	}
	counts := make([]common.Counter, n)
	start := make(chan struct{})
	for i := range counts {
		go func(c *common.Counter, rng uint64) {
			array := new([wsize]uint64)
			<-start
			for {
				for j := 0; j < wcnt; j++ {
					array[common.Rand(&rng)%wsize]++
				}
				s := spots[common.Rand(&rng)%uint64(nspots)]
				s <- array
				got := <-s
				if share {
					array = got
				}
				c.Add(1)
			}
		}(&counts[i], uint64(i+1))
	}
	common.Measure(start, counts)
}
