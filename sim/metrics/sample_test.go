package metrics

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The expected values are numpy.percentile(x, p) (method="linear").
func TestPercentileMatchesNumpy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		xs   []float64
		p    float64
		want float64
	}{
		{"median even", []float64{4, 1, 3, 2}, 50, 2.5},
		{"p99 of 4", []float64{1, 2, 3, 4}, 99, 3.97},
		{"p0", []float64{5, 1, 9}, 0, 1},
		{"p100", []float64{5, 1, 9}, 100, 9},
		{"p25 of 5", []float64{10, 20, 30, 40, 50}, 25, 20},
		{"p90 of 10", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 90, 9.1},
		{"p99.9 of 3", []float64{0, 1, 2}, 99.9, 1.998},
		{"single", []float64{7}, 95, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Sample
			for _, x := range tt.xs {
				s.Add(x)
			}
			assert.InDelta(t, tt.want, s.Percentile(tt.p), 1e-12)
		})
	}
}

// TestWeightedPercentile: AddN(v, n) is exactly n copies of v.
func TestWeightedPercentile(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 3))
	var w, u Sample
	for range 2000 {
		v := math.Round(r.Float64()*100) / 100 // ties
		n := 1 + r.IntN(5)
		w.AddN(v, n)
		for range n {
			u.Add(v)
		}
	}
	require.Equal(t, u.Count(), w.Count())
	assert.InDelta(t, u.Mean(), w.Mean(), 1e-12)
	assert.InDelta(t, u.Std(), w.Std(), 1e-12)
	for _, p := range []float64{0, 1, 10, 33.3, 50, 90, 99, 99.9, 100} {
		assert.Equal(t, u.Percentile(p), w.Percentile(p), "p%v", p)
	}
	vals := w.Values()
	assert.True(t, slices.IsSorted(vals))
	assert.Len(t, vals, w.Count())
}

// TestWeightedPages: a long run of weighted values, kept in pages, reads
// back as the values in the order added (equal neighbours merged across
// page boundaries too), with the percentiles of the expanded sample; and
// values added after a read join the rest.
func TestWeightedPages(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(4, 4))
	var w, u Sample
	var want []float64
	add := func(k int) {
		for range k {
			v := r.Float64()
			for range 1 + r.IntN(3) { // runs of equal values merge
				n := 2 + r.IntN(3)
				w.AddN(v, n)
				for range n {
					u.Add(v)
					want = append(want, v)
				}
			}
		}
	}
	add(3*samplePage + 100)
	require.NotEmpty(t, w.pages)
	require.Equal(t, want, w.Values())
	for _, p := range []float64{0, 1, 50, 99.9, 100} {
		require.Equal(t, u.Percentile(p), w.Percentile(p), "p%v", p)
	}
	add(2 * samplePage)
	require.NotEmpty(t, w.pages)
	for _, p := range []float64{0, 1, 50, 99.9, 100} {
		require.Equal(t, u.Percentile(p), w.Percentile(p), "p%v", p)
	}
	require.Len(t, w.Values(), len(want))
}

// TestUnitPages: a long run of unit values (one decoder's steps), kept in
// pages, reads back as the values in the order added, with the
// percentiles of the same values added to one slice; values added after
// a read join the rest, and weighted values beside them fold in.
func TestUnitPages(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 6))
	var w Sample
	var want []float64
	add := func(k int) {
		for range k {
			v := r.Float64()
			w.Add(v)
			want = append(want, v)
		}
	}
	exact := func() *Sample { // the same values in one slice
		u := &Sample{xs: slices.Clone(want)}
		for _, v := range want {
			u.moments(v, 1)
		}
		return u
	}
	add(3*unitPage + 100)
	require.NotEmpty(t, w.xpages)
	require.Equal(t, want, w.Values())
	u := exact()
	for _, p := range []float64{0, 1, 50, 99.9, 100} {
		require.Equal(t, u.Percentile(p), w.Percentile(p), "p%v", p)
	}
	add(2 * unitPage)
	require.NotEmpty(t, w.xpages)
	u = exact()
	for _, p := range []float64{0, 1, 50, 99.9, 100} {
		require.Equal(t, u.Percentile(p), w.Percentile(p), "p%v", p)
	}
	add(unitPage + 1)
	require.NotEmpty(t, w.xpages)
	for range 3 {
		w.AddN(0.5, 2)
		want = append(want, 0.5, 0.5)
	}
	u = exact()
	for _, p := range []float64{0, 1, 50, 99.9, 100} {
		require.Equal(t, u.Percentile(p), w.Percentile(p), "p%v", p)
	}
	require.Len(t, w.Values(), len(want))
}

func TestSampleMoments(t *testing.T) {
	t.Parallel()
	var s Sample
	for _, x := range []float64{2, 4, 4, 4, 5, 5, 7, 9} {
		s.Add(x)
	}
	assert.Equal(t, 5.0, s.Mean())
	assert.Equal(t, 2.0, s.Std()) // population std, as np.std
	assert.Equal(t, 2.0, s.Min())
	assert.Equal(t, 9.0, s.Max())
	var empty Sample
	assert.Zero(t, empty.Percentile(99))
	assert.Zero(t, empty.Mean())
	assert.Zero(t, empty.Std())
}

// TestSketchAccuracy: every sketch quantile is within the relative accuracy
// of the exact value at the same rank (lognormal data over 6 decades).
func TestSketchAccuracy(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 5))
	s := NewSummarySample()
	var exact Sample
	for range 100_000 {
		v := math.Exp(r.NormFloat64()*3 - 4)
		s.Add(v)
		exact.Add(v)
	}
	for _, p := range []float64{0, 1, 5, 25, 50, 75, 90, 95, 99, 99.9, 100} {
		// The sketch returns a value of the sample's rank ⌊h⌋ or ⌈h⌉ bucket;
		// compare against the bracket of exact neighbours.
		got := s.Percentile(p)
		lo := exact.Percentile(math.Max(p-0.01, 0))
		hi := exact.Percentile(math.Min(p+0.01, 100))
		assert.GreaterOrEqual(t, got, lo*(1-DefaultSketchAccuracy)*(1-1e-12), "p%v", p)
		assert.LessOrEqual(t, got, hi*(1+DefaultSketchAccuracy)*(1+1e-12), "p%v", p)
	}
	assert.Equal(t, exact.Mean(), s.Mean())
	assert.Nil(t, s.Values())
}

// TestMergeStats: two replicas' counters combine by each counter's rule,
// checked against sums, means and maxima worked out by hand.
func TestMergeStats(t *testing.T) {
	t.Parallel()
	a := []Stat{{Name: "steps", Value: 10}, {Name: "mbu", Value: 0.5, Merge: Mean}, {Name: "max_running", Value: 7, Merge: Max}}
	b := []Stat{{Name: "steps", Value: 30}, {Name: "mbu", Value: 0.7, Merge: Mean}, {Name: "max_running", Value: 3, Merge: Max}}
	got, err := MergeStats([][]Stat{a, b})
	require.NoError(t, err)
	assert.Equal(t, 40.0, got[0].Value)         // 10 + 30
	assert.InDelta(t, 0.6, got[1].Value, 1e-15) // (0.5 + 0.7)/2
	assert.Equal(t, 7.0, got[2].Value)          // max(7, 3)
	assert.Equal(t, 10.0, a[0].Value, "inputs untouched")

	// A ratio sums its parts: replica a hit 300 of 1000 query tokens,
	// replica b 100 of 3000, so the pooled rate is 400/4000, not the mean
	// of 0.3 and 1/30.
	ra := []Stat{RatioStat("hit_rate", 300, 1000)}
	rb := []Stat{RatioStat("hit_rate", 100, 3000)}
	got, err = MergeStats([][]Stat{ra, rb})
	require.NoError(t, err)
	assert.Equal(t, 0.1, got[0].Value)
	assert.Equal(t, 4000.0, got[0].Den)
	assert.Equal(t, 0.0, RatioStat("empty", 0, 0).Value)

	_, err = MergeStats([][]Stat{a, b[:2]})
	assert.ErrorContains(t, err, "replica 1 reports 2 counters")
	b[1].Name = "mfu"
	_, err = MergeStats([][]Stat{a, b})
	assert.ErrorContains(t, err, `"mfu"`)
	got, err = MergeStats(nil)
	assert.NoError(t, err)
	assert.Nil(t, got)
}

// TestFromRecordsMatchesStored: a sample read from records (FromRecords,
// which selects percentiles in a lent buffer) answers exactly as one that
// stores the same values (Add, which sorts them): every metric, moments
// to the bit, percentiles asked in an order that repeats some and goes
// past maxPicks, Values, and Add after a read. The records are random,
// with ties, warm-up, failed requests and one-token outputs.
func TestFromRecordsMatchesStored(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{0, 1, 2, 17, 1000, 20_000} {
		rs := make([]Request, n)
		for i := range rs {
			sent := float64(r.IntN(50)) / 8 // ties
			first := sent + float64(r.IntN(40))/16
			rs[i] = Request{ID: i, Input: 1 + r.IntN(9), Output: 1 + r.IntN(4), Arrival: sent - float64(r.IntN(3)), Sent: sent,
				Start: sent + float64(r.IntN(4))/32, FirstToken: first, Done: first + r.Float64(), Status: Completed, Warmup: r.IntN(10) == 0}
			if r.IntN(7) == 0 {
				rs[i].Status = Failed
			}
		}
		for l := range NumLatencies {
			got := FromRecords(l, rs)
			want := &Sample{}
			for i := range rs {
				if q := &rs[i]; !q.Warmup && q.Status == Completed {
					if v, ok := l.Of(q); ok {
						want.Add(v)
					}
				}
			}
			name := func(what string) string { return fmt.Sprintf("n=%d %v %s", n, l, what) }
			require.Equal(t, want.Count(), got.Count(), name("count"))
			for _, f := range []func(*Sample) float64{(*Sample).Mean, (*Sample).Std, (*Sample).Min, (*Sample).Max} {
				require.Equal(t, math.Float64bits(f(want)), math.Float64bits(f(got)), name("moments"))
			}
			require.Equal(t, want.Values(), got.Values(), name("values before a percentile (record order)"))
			for i, p := range []float64{50, 99, 50, 0, 100, 99, 33.3, 90, 12.5, 99.9, 50, -3, 140} {
				require.Equal(t, math.Float64bits(want.Percentile(p)), math.Float64bits(got.Percentile(p)), name(fmt.Sprintf("p%v (ask %d)", p, i)))
			}
			require.Equal(t, want.Values(), got.Values(), name("values after percentiles (sorted)"))
			got.Add(0.25)
			want.Add(0.25)
			require.Equal(t, math.Float64bits(want.Percentile(75)), math.Float64bits(got.Percentile(75)), name("p75 after Add"))
		}
	}
}

// TestSelectRank: selectRank returns what sorting puts at rank k and
// leaves no greater value before it and no smaller one after, on random
// data, runs of equal values, NaNs and orders that defeat a
// median-of-three pivot (where it falls back to sorting).
func TestSelectRank(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 7))
	organ := func(n int) []float64 { // rises then falls: a median-of-three killer shape
		xs := make([]float64, n)
		for i := range xs {
			xs[i] = float64(min(i, n-1-i))
		}
		return xs
	}
	gen := map[string]func(n int) []float64{
		"random": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = r.NormFloat64()
			}
			return xs
		},
		"ties": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(r.IntN(3))
			}
			return xs
		},
		"sorted": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(i)
			}
			return xs
		},
		"reversed": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = float64(n - i)
			}
			return xs
		},
		"organ": organ,
		"nan": func(n int) []float64 {
			xs := make([]float64, n)
			for i := range xs {
				xs[i] = r.Float64()
				if r.IntN(5) == 0 {
					xs[i] = math.NaN()
				}
			}
			return xs
		},
	}
	for name, g := range gen {
		for _, n := range []int{1, 2, 16, 17, 100, 5000} {
			for _, k := range []int{0, n / 3, n / 2, n - 1} {
				xs := g(n)
				sorted := slices.Clone(xs)
				slices.Sort(sorted)
				got := selectRank(xs, k)
				if math.Float64bits(got) != math.Float64bits(sorted[k]) && !(math.IsNaN(got) && math.IsNaN(sorted[k])) {
					t.Fatalf("%s n=%d k=%d: %v, sorting gives %v", name, n, k, got, sorted[k])
				}
				for i, x := range xs {
					if (i < k && cmp.Less(got, x)) || (i > k && cmp.Less(x, got)) {
						t.Fatalf("%s n=%d k=%d: xs[%d] = %v on the wrong side of %v", name, n, k, i, x, got)
					}
				}
				slices.Sort(xs)
				if !slices.EqualFunc(xs, sorted, func(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }) {
					t.Fatalf("%s n=%d k=%d: the values changed", name, n, k)
				}
			}
		}
	}
}

// TestFromRecordsConcurrentReaders: goroutines asking percentiles of
// record-backed samples at once (each loan of the shared buffer may
// overlap another) get the stored sample's answers; run it with -race.
func TestFromRecordsConcurrentReaders(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(8, 8))
	rs := make([]Request, 5000)
	for i := range rs {
		rs[i] = Request{ID: i, Output: 2, Sent: r.Float64(), Start: 1, FirstToken: 1 + r.Float64(), Done: 3 + r.Float64(), Status: Completed}
	}
	ps := []float64{50, 99, 90, 10, 75, 1}
	want := map[Latency][]float64{}
	for _, l := range []Latency{TTFT, TPOT, E2E} {
		var s Sample
		for i := range rs {
			v, _ := l.Of(&rs[i])
			s.Add(v)
		}
		for _, p := range ps {
			want[l] = append(want[l], s.Percentile(p))
		}
	}
	samples := map[Latency]*Sample{TTFT: FromRecords(TTFT, rs), TPOT: FromRecords(TPOT, rs), E2E: FromRecords(E2E, rs)}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(ps)*len(samples)) // room for every answer: no sender blocks
	for g := range 8 {
		wg.Go(func() {
			for i := range ps {
				p := ps[(i+g)%len(ps)]
				for l, s := range samples {
					if got := s.Percentile(p); got != want[l][(i+g)%len(ps)] {
						errs <- fmt.Sprintf("goroutine %d: %v p%v = %v, want %v", g, l, p, got, want[l][(i+g)%len(ps)])
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
