package metrics

import (
	"cmp"
	"math"
	"slices"
	"sync"
)

// A Sample collects one latency metric (seconds): running moments always,
// and either every value (the default, so percentiles are exact) or a
// Sketch (summary mode, so memory does not grow with the run).
//
// Values may carry integer weights: ITL is pooled per engine step as one
// gap shared by n decoding requests, which is exactly n equal values.
//
// A sample built from request records (FromRecords) stores no values: it
// reads them from the records, selecting each percentile asked for in a
// buffer it borrows for the call, and keeps the answers.
//
// Percentile sorts the stored values on first use, under a lock, so
// concurrent readers are safe; Add must not run concurrently with anything.
type Sample struct {
	mu      sync.Mutex
	xs      []float64    // unit-weight values
	ws      []weighted   // weighted values (AddN with n > 1); xs fold in when sorting
	pages   [][]weighted // full pages of weighted values, before ws (see AddN)
	xpages  [][]float64  // full pages of unit-weight values, before xs (see AddN)
	sorted  bool
	sketch  *Sketch
	summary bool

	// A record-backed sample's values are metric lat of the completed,
	// measured requests among recs (recs is nil otherwise); picked holds
	// the percentiles answered so far, at most maxPicks before the sample
	// copies its values (own).
	recs   []Request
	lat    Latency
	picked []pick

	n    float64 // total weight
	mean float64
	m2   float64 // Σ w·(x−mean)², West's weighted Welford update
	min  float64
	max  float64
}

type weighted struct {
	v float64
	w float64
}

// pick is one percentile of a record-backed sample: p and its value.
type pick struct{ p, v float64 }

// maxPicks is how many distinct percentiles a record-backed sample
// selects (O(n) each) before it keeps a sorted copy of its values (8
// bytes each) and answers the rest from that.
const maxPicks = 4

// NewSample returns an empty exact Sample with room for n unit values.
func NewSample(n int) *Sample { return &Sample{xs: make([]float64, 0, n)} }

// NewSummarySample returns a Sample that keeps a Sketch instead of values.
func NewSummarySample() *Sample {
	return &Sample{summary: true, sketch: NewSketch(DefaultSketchAccuracy)}
}

// Add records one value.
func (s *Sample) Add(v float64) { s.AddN(v, 1) }

// AddN records n copies of v; n ≤ 0 is ignored.
func (s *Sample) AddN(v float64, n int) {
	if n <= 0 {
		return
	}
	if s.recs != nil {
		s.own()
	}
	w := float64(n)
	s.moments(v, w)
	s.sorted = false
	switch k := len(s.ws); {
	case s.summary:
		s.sketch.AddN(v, w)
	case n == 1:
		if k := len(s.xs); k == cap(s.xs) && k >= unitPage {
			// One decoder's steps: one value each. Pages as for ws below.
			s.xpages = append(s.xpages, s.xs)
			s.xs = make([]float64, 0, unitPage)
		}
		s.xs = append(s.xs, v)
	case k > 0 && s.ws[k-1].v == v:
		s.ws[k-1].w += w // runs of equal gaps (steady decode steps) stay one entry
	default:
		if k == cap(s.ws) && k >= samplePage {
			// A long run's per-step values: fill pages instead of growing
			// by copying, which would leave garbage of about four times
			// what is kept (append grows a large slice by a quarter) and
			// copy it as often. Reads join them first (join).
			s.pages = append(s.pages, s.ws)
			s.ws = make([]weighted, 0, samplePage)
		}
		s.ws = append(s.ws, weighted{v, w})
	}
}

// moments adds w copies of v to the count, mean, m2, min and max.
func (s *Sample) moments(v, w float64) {
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n += w
	d := v - s.mean
	s.mean += d * w / s.n
	s.m2 += w * d * (v - s.mean)
}

// samplePage and unitPage are the sizes of a page of weighted and of
// unit-weight values, 32 KiB (the largest small allocation: a page costs
// no span of its own).
const (
	samplePage = 32 << 10 / 16
	unitPage   = 32 << 10 / 8
)

// join puts the pages of values back into ws and xs, in the order added.
func (s *Sample) join() {
	if len(s.xpages) > 0 {
		s.xs, s.xpages = joinPages(s.xpages, s.xs), nil
	}
	if len(s.pages) > 0 {
		s.ws, s.pages = joinPages(s.pages, s.ws), nil
	}
}

// joinPages returns the values of pages and then last in one new slice.
func joinPages[T any](pages [][]T, last []T) []T {
	n := len(last)
	for _, p := range pages {
		n += len(p)
	}
	out := make([]T, 0, n)
	for _, p := range pages {
		out = append(out, p...)
	}
	return append(out, last...)
}

// Count returns the number of values (total weight).
func (s *Sample) Count() int { return int(s.n) }

// Mean returns the arithmetic mean, or 0 when empty (vLLM's convention).
func (s *Sample) Mean() float64 { return s.mean }

// Std returns the population standard deviation (numpy's np.std, ddof 0),
// or 0 when empty.
func (s *Sample) Std() float64 {
	if s.n == 0 {
		return 0
	}
	return math.Sqrt(math.Max(s.m2/s.n, 0))
}

// Min returns the smallest value, or 0 when empty.
func (s *Sample) Min() float64 { return s.min }

// Max returns the largest value, or 0 when empty.
func (s *Sample) Max() float64 { return s.max }

// Median returns Percentile(50).
func (s *Sample) Median() float64 { return s.Percentile(50) }

// Percentile returns the p-th percentile (0 ≤ p ≤ 100) by linear
// interpolation between closest ranks — numpy's default ("linear") method —
// applied to the values with each weighted value repeated. It returns 0
// when the sample is empty. In summary mode it is the sketch's estimate,
// within its relative accuracy.
func (s *Sample) Percentile(p float64) float64 {
	if s.n == 0 {
		return 0
	}
	p = math.Min(math.Max(p, 0), 100)
	if s.summary {
		return s.sketch.Quantile(p / 100)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	h := (s.n - 1) * p / 100
	lo := math.Floor(h)
	if s.recs != nil {
		if v, ok := s.pick(p, h, lo); ok {
			return v
		}
	}
	if !s.sorted {
		s.sort()
	}
	vlo := s.valueAtRank(lo)
	if h == lo {
		return vlo
	}
	return vlo + (h-lo)*(s.valueAtRank(lo+1)-vlo)
}

// pick answers percentile p (rank h, ⌊h⌋ = lo) of a record-backed sample
// as Percentile's sorted path would: from the percentiles already picked,
// or by selecting ranks lo and lo+1 from the values copied into a
// borrowed buffer. Past maxPicks percentiles it copies the values for
// itself (own) and reports false, so Percentile sorts them.
func (s *Sample) pick(p, h, lo float64) (float64, bool) {
	for _, k := range s.picked {
		if k.p == p {
			return k.v, true
		}
	}
	if len(s.picked) == maxPicks {
		s.own()
		return 0, false
	}
	buf := borrow(len(s.recs))
	defer giveBack(buf)
	xs := s.fill(*buf)
	*buf = xs
	v := selectRank(xs, int(lo))
	if h != lo {
		v += (h - lo) * (minOf(xs[int(lo)+1:]) - v)
	}
	s.picked = append(s.picked, pick{p, v})
	return v, true
}

// fill appends the values of a record-backed sample to dst, in record
// order, and returns it.
func (s *Sample) fill(dst []float64) []float64 {
	for i := range s.recs {
		q := &s.recs[i]
		if q.Warmup || q.Status != Completed {
			continue
		}
		if v, ok := s.lat.Of(q); ok {
			dst = append(dst, v)
		}
	}
	return dst
}

// own turns a record-backed sample into one that stores its values: it
// copies them from the records and forgets the records.
func (s *Sample) own() {
	s.xs = s.fill(make([]float64, 0, int(s.n)))
	s.recs, s.picked, s.sorted = nil, nil, false
}

// valueAtRank returns the value at 0-based rank k of the expanded, sorted
// sample.
func (s *Sample) valueAtRank(k float64) float64 {
	if len(s.ws) == 0 { // unit weights: direct index
		return s.xs[int(k)]
	}
	var cum float64
	for _, x := range s.ws {
		cum += x.w
		if cum > k {
			return x.v
		}
	}
	return s.ws[len(s.ws)-1].v
}

// sort orders the values; with weighted values present it folds the unit
// values into ws first.
func (s *Sample) sort() {
	s.sorted = true
	if len(s.ws) == 0 && len(s.pages) == 0 {
		s.join()
		slices.Sort(s.xs)
		return
	}
	// One slice of the final size: the pages, ws, then the unit values
	// (their pages, then xs) as weight-1 entries (joining the pages first
	// and then appending the unit values would copy the lot twice).
	n := len(s.ws) + len(s.xs)
	for _, p := range s.pages {
		n += len(p)
	}
	for _, p := range s.xpages {
		n += len(p)
	}
	ws := make([]weighted, 0, n)
	for _, p := range s.pages {
		ws = append(ws, p...)
	}
	ws = append(ws, s.ws...)
	for _, p := range s.xpages {
		for _, x := range p {
			ws = append(ws, weighted{x, 1})
		}
	}
	for _, x := range s.xs {
		ws = append(ws, weighted{x, 1})
	}
	s.ws, s.pages, s.xs, s.xpages = ws, nil, nil, nil
	slices.SortFunc(s.ws, func(a, b weighted) int { return cmp.Compare(a.v, b.v) })
}

// Values returns the stored values expanded by weight (sorted once a
// percentile has been asked for); nil in summary mode.
func (s *Sample) Values() []float64 {
	if s.summary {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recs != nil {
		out := s.fill(make([]float64, 0, int(s.n)))
		if len(s.picked) > 0 {
			slices.Sort(out)
		}
		return out
	}
	s.join()
	out := make([]float64, 0, int(s.n))
	out = append(out, s.xs...)
	for _, x := range s.ws {
		for range int(x.w) {
			out = append(out, x.v)
		}
	}
	return out
}
