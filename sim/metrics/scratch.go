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
// orders them (cmp.Less: NaNs first). It is quickselect with a
// median-of-three pivot and a three-way partition (runs of equal values
// finish at once), expected O(n); once bits.Len(n) partitions have each
// left more than 7/8 of the range, it sorts what is left instead, so the
// worst case is O(n log n).
func selectRank(xs []float64, k int) float64 {
	lo, hi := 0, len(xs) // xs[lo:hi] holds rank k
	bad := bits.Len(uint(len(xs)))
	for hi-lo > 16 {
		m := lo + (hi-lo)/2
		pivot := median3(xs[lo], xs[m], xs[hi-1])
		// xs[lo:lt] < pivot, xs[lt:i] = pivot, xs[gt:hi] > pivot.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch x := xs[i]; {
			case cmp.Less(x, pivot):
				xs[lt], xs[i] = x, xs[lt]
				lt++
				i++
			case cmp.Less(pivot, x):
				gt--
				xs[i], xs[gt] = xs[gt], x
			default:
				i++
			}
		}
		n := hi - lo
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return xs[k] // xs[lt:gt] all equal the pivot
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
