package metrics_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/servesim/servesim/sim/metrics"
)

// TestPeakConcurrent checks the count against a direct one: the most
// requests whose [Sent, Done) intervals hold a common instant, counted at
// every send time, over random records with ties, warm-up and failed
// requests.
func TestPeakConcurrent(t *testing.T) {
	direct := func(rs []metrics.Request) int {
		peak := 0
		for _, a := range rs {
			if a.Warmup || a.Status != metrics.Completed {
				continue
			}
			n := 0
			for _, b := range rs {
				if !b.Warmup && b.Status == metrics.Completed && b.Sent <= a.Sent && a.Sent < b.Done {
					n++
				}
			}
			peak = max(peak, n)
		}
		return peak
	}
	for _, tc := range []struct {
		name string
		rs   []metrics.Request
		want int
	}{
		{"none", nil, 0},
		{"end at a send is not counted", []metrics.Request{
			{Sent: 0, Done: 1, Status: metrics.Completed}, {Sent: 1, Done: 2, Status: metrics.Completed}}, 1},
		{"overlap", []metrics.Request{
			{Sent: 0, Done: 3, Status: metrics.Completed}, {Sent: 1, Done: 2, Status: metrics.Completed},
			{Sent: 1, Done: 4, Status: metrics.Completed}, {Sent: 2, Done: 5, Status: metrics.Failed}}, 3},
	} {
		if got := metrics.PeakConcurrent(tc.rs); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		rs := make([]metrics.Request, r.IntN(40))
		for i := range rs {
			s := float64(r.IntN(10)) // ties
			rs[i] = metrics.Request{Sent: s, Done: s + float64(r.IntN(6)), Status: metrics.Completed, Warmup: r.IntN(8) == 0}
			if r.IntN(6) == 0 {
				rs[i].Status = metrics.Failed
			}
		}
		if got, want := metrics.PeakConcurrent(rs), direct(rs); got != want {
			t.Fatalf("trial %d: %d, want %d (%+v)", trial, got, want, rs)
		}
		// The same records in send order: the path that reads them in place.
		slices.SortStableFunc(rs, func(a, b metrics.Request) int { return cmp.Compare(a.Sent, b.Sent) })
		if got, want := metrics.PeakConcurrent(rs), direct(rs); got != want {
			t.Fatalf("trial %d in send order: %d, want %d (%+v)", trial, got, want, rs)
		}
	}
}
