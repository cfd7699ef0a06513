// Package gcfloor gives the garbage collector a heap floor, for programs
// whose live heap is small but whose allocation rate is high, as
// servesim's simulations are: a run keeps a few megabytes live while it
// allocates and drops events and requests at a high rate. Below the
// floor Go's default pacing (GOGC=100, a 4 MB minimum) collects every few
// megabytes, so the collector is marking, and every pointer write pays
// its barrier, much of the time; and simulations that run side by side
// share one heap, so each collects for both, as if every core were slower.
//
// The floor is a ballast: one pointer-free allocation that is never
// written, so the collector never scans it and the operating system
// never backs it with memory, but the pacer counts it, and a cycle starts
// only once the heap reaches about twice Size plus twice the live data.
// Programs with a large live heap are paced as before.
package gcfloor

import (
	"os"
	"sync"
)

// Size is the ballast, bytes.
const Size = 64 << 20

var (
	once    sync.Once
	ballast []byte
)

// Set lays the floor, once per process, unless GOGC or GOMEMLIMIT is set
// in the environment: the user's settings win. It reports whether the
// floor is in place.
func Set() bool {
	once.Do(func() {
		if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
			ballast = make([]byte, Size)
		}
	})
	return ballast != nil
}

// RunTests lays the floor and runs a test binary's tests (m is its
// *testing.M), exiting with their status: a TestMain for packages whose
// tests simulate much and keep little live, where Go's default pacing
// had the collector take 10-25% of the test CPU. It changes no result
// (the simulations are deterministic); tests that read heap counters do
// not belong in such a package.
func RunTests(m interface{ Run() int }) {
	Set()
	os.Exit(m.Run())
}
