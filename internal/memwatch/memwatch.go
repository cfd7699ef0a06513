// Package memwatch measures the peak heap of a function for tests and
// benchmarks that hold code to a memory budget.
package memwatch

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

const heapObjects = "/memory/classes/heap/objects:bytes"

// Peak runs f under a soft heap limit of limit bytes (debug.SetMemoryLimit;
// 0 leaves the limit alone) and returns the largest heap-object size seen,
// sampled every millisecond and once at the end, in bytes. Under the limit
// the collector runs as the heap nears it, so the samples track the live
// heap: a function whose live data exceeds the limit shows a peak above
// it. The previous limit is restored. Peak reads process-wide counters, so
// callers must not run other work in parallel.
func Peak(limit int64, f func()) uint64 {
	if limit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	runtime.GC()
	sample := []metrics.Sample{{Name: heapObjects}}
	var peak atomic.Uint64
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > peak.Load() {
			peak.Store(v)
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	f()
	read()
	close(done)
	wg.Wait()
	return peak.Load()
}
