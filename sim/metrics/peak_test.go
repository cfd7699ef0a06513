package metrics

import "testing"

// PeakRate counts events in one-second windows aligned to the origin, as
// vLLM buckets int(token_time - t0).
func TestPeakRate(t *testing.T) {
	t.Parallel()
	var p PeakRate
	p.Add(0.5, 100) // before Start: ignored
	p.Start(10)
	p.Start(11) // the first origin stays
	for _, e := range []struct {
		t float64
		n int
	}{{10.2, 3}, {10.9, 4}, {11.0, 5}, {11.99, 1}, {13.5, 2}} {
		p.Add(e.t, e.n)
	}
	if got := p.Max(); got != 7 {
		t.Errorf("Max = %v, want 7 (3+4 in [10, 11))", got)
	}
}
