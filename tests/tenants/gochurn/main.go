// SPDX-License-Identifier: GPL-2.0
//
// A Go service's heap for the lab's Go tenant (tests/vm/tenants): run with
// a low GOGC, so the collector runs often and the heap goal stays tight.
//
//	gochurn MIB SECONDS
//
// Keeps MIB of live values (sizes log-uniform from 64 B to 256 KiB) in a
// map and replaces 2% of them every 100 ms, so garbage is made steadily and
// collected; at 40% of the run the load drops and a random half is
// dropped, at 70% it comes back and the map is filled again (the load
// tests/tenants/kvcache.c gives the C allocators). Prints one JSON line at
// the end; exit 2 for bad arguments.
package main

import (
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"strconv"
	"time"
)

func value(r *rand.Rand) []byte {
	base := 64 << r.Intn(12)
	b := make([]byte, base+r.Intn(base))
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gochurn MIB SECONDS")
		os.Exit(2)
	}
	mib, err1 := strconv.Atoi(os.Args[1])
	secs, err2 := strconv.Atoi(os.Args[2])
	if err1 != nil || err2 != nil || mib <= 0 || secs <= 0 {
		fmt.Fprintln(os.Stderr, "usage: gochurn MIB SECONDS")
		os.Exit(2)
	}
	r := rand.New(rand.NewSource(1))
	cache := map[int][]byte{}
	live := 0
	for live < mib<<20 {
		v := value(r)
		cache[len(cache)] = v
		live += len(v)
	}
	keys := len(cache)
	start := time.Now()
	end := start.Add(time.Duration(secs) * time.Second)
	dropped, refilled := false, false
	for time.Now().Before(end) {
		done := float64(time.Since(start)) / float64(end.Sub(start))
		if !dropped && done > 0.4 {
			for i := 0; i < keys; i++ {
				if r.Intn(2) == 0 {
					live -= len(cache[i])
					delete(cache, i)
				}
			}
			dropped = true
		}
		if !refilled && done > 0.7 {
			for i := 0; i < keys && live < mib<<20; i++ {
				if _, ok := cache[i]; !ok {
					cache[i] = value(r)
					live += len(cache[i])
				}
			}
			refilled = true
		}
		for k := 0; k < keys/50+1; k++ {
			i := r.Intn(keys)
			if v, ok := cache[i]; ok {
				live -= len(v)
				cache[i] = value(r)
				live += len(cache[i])
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Printf("{\"tenant\": \"gochurn\", \"live_mib\": %d, \"heap_sys_mib\": %d, \"heap_released_mib\": %d, \"gc_cycles\": %d}\n",
		live>>20, ms.HeapSys>>20, ms.HeapReleased>>20, ms.NumGC)
}
