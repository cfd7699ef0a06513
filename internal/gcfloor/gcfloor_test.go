package gcfloor

import (
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"testing"
)

// rss returns the process's resident memory, bytes (Linux).
func rss(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skip("no /proc/self/statm")
	}
	f := strings.Fields(string(b))
	pages, _ := strconv.ParseInt(f[1], 10, 64)
	return pages * int64(os.Getpagesize())
}

// TestFloor: the floor raises the collector's heap goal above twice its
// size, and costs next to no resident memory. Not parallel: it reads
// process-wide counters.
func TestFloor(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOGC or GOMEMLIMIT set: the floor stays off")
	}
	before := rss(t)
	first := Set()
	again := Set() // a second call keeps the one floor
	if !first || !again {
		t.Fatal("Set: no floor")
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	if goal := s[0].Value.Uint64(); goal < 2*Size {
		t.Errorf("heap goal %d MB, want >= %d MB", goal>>20, 2*Size>>20)
	}
	if grew := rss(t) - before; grew > Size/8 {
		t.Errorf("resident memory grew %d MB with the floor, want < %d MB", grew>>20, Size/8>>20)
	}
}
