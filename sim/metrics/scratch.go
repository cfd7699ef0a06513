package metrics

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"
	"weak"
)

// scratch lends one []float64 at a time (borrow, giveBack) to work that
// needs a buffer of a request's size only while it runs: a record-backed
// sample's percentile selection (FromRecords) and PeakConcurrent. A
// run's metrics, computed one after another, thus share 8 bytes a
// request instead of keeping as much each. Between loans the buffer is
// held weakly, so the collector reclaims it once nothing uses it; loans
// that overlap (goroutines computing at once) get buffers of their own.
var scratch struct {
	mu  sync.Mutex
	buf weak.Pointer[[]float64]
}

// borrow returns an empty buffer with room for n values, the lent one
// when it is large enough.
func borrow(n int) *[]float64 {
	scratch.mu.Lock()
	p := scratch.buf.Value()
	scratch.buf = weak.Pointer[[]float64]{}
	scratch.mu.Unlock()
	if p == nil || cap(*p) < n {
		b := make([]float64, 0, n)
		return &b
	}
	*p = (*p)[:0]
	return p
}

// giveBack returns a buffer from borrow; the larger of it and the one
// held is kept.
func giveBack(p *[]float64) {
	scratch.mu.Lock()
	defer scratch.mu.Unlock()
	if q := scratch.buf.Value(); q == nil || cap(*q) < cap(*p) {
		scratch.buf = weak.Make(p)
	}
}

// selectRank reorders xs so that xs[k] holds the value slices.Sort would
// put at index k (0 ≤ k < len(xs)), no greater value before it and no
// smaller one after, and returns it. Values are ordered as slices.Sort
// orders them (cmp.Less: NaNs first, moved to the front by a first
// pass). It is quickselect, Hoare's partition around a median-of-three
// pivot (runs of equal values split evenly), expected O(n); once
// bits.Len(n) partitions have each left more than 7/8 of the range, it
// sorts what is left instead, so the worst case is O(n log n).
func selectRank(xs []float64, k int) float64 {
	lo, hi := 0, len(xs) // xs[lo:hi] holds rank k
	for i, x := range xs {
		if x != x { // NaN
			xs[lo], xs[i] = x, xs[lo]
			lo++
		}
	}
	if k < lo {
		return xs[k]
	}
	bad := bits.Len(uint(len(xs)))
	for hi-lo > 16 {
		n := hi - lo
		pivot := median3(xs[lo], xs[lo+n/2], xs[hi-1])
		// Both scans stop at values equal to the pivot, and the pivot is
		// among the values, so neither runs out of the range, and it
		// splits into xs[lo:j+1] ≤ pivot ≤ xs[j+1:hi], neither empty.
		i, j := lo-1, hi
		for {
			for i++; xs[i] < pivot; i++ {
			}
			for j--; pivot < xs[j]; j-- {
			}
			if i >= j {
				break
			}
			xs[i], xs[j] = xs[j], xs[i]
		}
		if k <= j {
			hi = j + 1
		} else {
			lo = j + 1
		}
		if 8*(hi-lo) > 7*n {
			if bad--; bad <= 0 {
				break
			}
		}
	}
	slices.Sort(xs[lo:hi])
	return xs[k]
}

// median3 returns the middle of a, b and c under cmp.Less.
func median3(a, b, c float64) float64 {
	if cmp.Less(b, a) {
		a, b = b, a
	}
	if cmp.Less(c, b) {
		b = c
		if cmp.Less(b, a) {
			b = a
		}
	}
	return b
}

// minOf returns the smallest of xs (len(xs) > 0) under cmp.Less.
func minOf(xs []float64) float64 {
	v := xs[0]
	for _, x := range xs[1:] {
		if cmp.Less(x, v) {
			v = x
		}
	}
	return v
}
