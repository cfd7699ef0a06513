package workload

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/servesim/servesim/internal/memwatch"
)

// Normalized arrivals of 10^9 requests (vLLM's default with a finite
// rate) start in O(1) memory: the issue's row "runtime OOM at start: one
// 8.0 GB allocation". Past 2^20 requests the times are regenerated; the
// stream still ends exactly at n/rate, like the kept slice. The test
// checks a 2^21-request stream's last time against n/rate and a 10^9
// stream's start against a 1 MB heap.
func TestNormalizedLazy(t *testing.T) {
	n := 1<<20 + 1<<20
	s, err := Gamma{Rate: 1000, Burstiness: 1, Normalize: true}.Stream(rand.New(rand.NewPCG(1, 2)), n)
	if err != nil {
		t.Fatal(err)
	}
	var last float64
	for i := range n {
		tt := s.Next()
		if tt < last {
			t.Fatalf("time %d: %v before %v", i, tt, last)
		}
		last = tt
	}
	if want := float64(n) / 1000; math.Abs(last-want) > 1e-9*want {
		t.Errorf("last arrival %v, want n/rate = %v", last, want)
	}
	if !math.IsInf(s.Next(), 1) {
		t.Error("the stream goes on past n")
	}
	peak := memwatch.Peak(0, func() {
		big, err := Poisson{Rate: 1000, Normalize: true}.Stream(rand.New(rand.NewPCG(1, 2)), 1e7)
		if err != nil {
			t.Error(err)
			return
		}
		for range 1000 {
			big.Next()
		}
	})
	if peak > 8<<20 {
		t.Errorf("normalized stream of 1e7 requests: peak heap %d bytes, want O(1) (< 8 MiB; the kept slice would be 80 MB)", peak)
	}
}

// Oversampled keeps the rows in order and, past them, draws rows
// uniformly: 3 rows drawn 30000 times come up 10000 ± 4.3 sd (sd 81.6).
func TestOversampled(t *testing.T) {
	t.Parallel()
	o := Oversampled{Pairs: []Pair{{1, 1}, {2, 2}, {3, 3}}}
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 3 {
		if in, _ := o.Sample(r, i); in != i+1 {
			t.Errorf("request %d: row %d, want row %d in order", i, in, i+1)
		}
	}
	counts := map[int]int{}
	for i := range 30000 {
		in, _ := o.Sample(r, 3+i)
		counts[in]++
	}
	sd := math.Sqrt(30000 * (1.0 / 3) * (2.0 / 3))
	for k := 1; k <= 3; k++ {
		if math.Abs(float64(counts[k])-10000) > 5*sd {
			t.Errorf("row %d drawn %d times, want 10000 ± %.0f", k, counts[k], 5*sd)
		}
	}
}

// Rates whose gaps overflow or lose the clock's resolution are input
// errors naming the field and the limit.
func TestMinRate(t *testing.T) {
	t.Parallel()
	for _, p := range []Process{Poisson{Rate: 5e-324}, Poisson{Rate: 1e-300}, Gamma{Rate: 1e-13, Burstiness: 1}, Constant{Rate: 1e-7},
		Ramp{Start: 1e-300, End: 1, Strategy: RampLinear}} {
		if err := p.Validate(); err == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if err := (Poisson{Rate: MinRate}).Validate(); err != nil {
		t.Errorf("MinRate refused: %v", err)
	}
}
