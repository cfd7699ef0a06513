package metrics

import "math"

// PeakRate finds the largest count of events in one-second windows
// [origin+k, origin+k+1), k = 0, 1, ...: vLLM's "Peak output token
// throughput", max_output_tokens_per_s, when the events are the output
// tokens of measured requests and origin the first measured send. Events
// must be added in non-decreasing time order (simulated time never goes
// back); memory is constant. The zero value has no origin yet and ignores
// events until Start.
type PeakRate struct {
	origin        float64
	started       bool
	bucket        int64
	count, result int64
}

// Start sets the origin of the windows, once; later calls do nothing.
func (p *PeakRate) Start(origin float64) {
	if !p.started {
		p.origin, p.started, p.bucket = origin, true, 0
	}
}

// Add counts n events at time t (t >= the origin and the times added
// before).
func (p *PeakRate) Add(t float64, n int) {
	if !p.started || n <= 0 {
		return
	}
	// Same window as the last event: no Floor (the bounds are whole
	// numbers, so the comparisons are exact).
	if d := t - p.origin; !(d >= float64(p.bucket) && d < float64(p.bucket+1)) {
		if b := int64(math.Floor(d)); b != p.bucket {
			p.bucket, p.count = b, 0
		}
	}
	p.count += int64(n)
	p.result = max(p.result, p.count)
}

// Max returns the most events counted in one window, 0 when none.
func (p *PeakRate) Max() float64 { return float64(p.result) }
