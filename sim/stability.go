package sim

// Stability is a run's verdict on whether its open-loop load was
// sustainable.
//
// The detector fits a least-squares line to the number of requests in the
// system (sent, not finished) seen by each measured arrival, against the
// arrival time. A stable queue's count is stationary, so its slope is
// noise; at ρ ≥ 1 the count grows like (λ−μ)t. The run is called unstable
// when the fitted growth over the measured window exceeds both
// GrowthFloor requests and the window's mean count, and the growth per
// arrival exceeds GrowthFraction: then the slope is large against both the
// count's own level and the arrival rate. A run also ends early, unstable,
// when the count reaches Config.MaxInSystem.
//
// The verdict needs a window that covers several relaxation times of the
// queue; near ρ = 1 relaxation is slow and short runs can go either way.
type Stability struct {
	// Unstable is true when the queue grew without bound.
	Unstable bool `json:"unstable"`
	// Reason says why, empty when stable.
	Reason string `json:"reason,omitempty"`
	// Growth is the fitted slope of the in-system count, requests per second.
	Growth float64 `json:"growth_per_s"`
	// GrowthPerArrival is Growth divided by the measured arrival rate.
	GrowthPerArrival float64 `json:"growth_per_arrival"`
	// MeanInSystem is the mean count seen by measured arrivals.
	MeanInSystem float64 `json:"mean_in_system_at_arrival"`
	// EndInSystem is the count when the last measured request arrived.
	EndInSystem int `json:"end_in_system"`
	// StoppedEarly is true when MaxInSystem ended the run.
	StoppedEarly bool `json:"stopped_early,omitempty"`
}

// Thresholds of the growth detector.
const (
	GrowthFraction = 0.01
	GrowthFloor    = 10.0
)

// trend accumulates the least-squares sums of (t, y) online.
type trend struct {
	n, st, stt, sy, sty float64
	last                float64
}

func (tr *trend) add(t, y float64) {
	tr.n++
	tr.st += t
	tr.stt += t * t
	tr.sy += y
	tr.sty += t * y
	tr.last = y
}

// slope returns the fitted dy/dt and the mean of y.
func (tr *trend) slope() (b, mean float64) {
	if tr.n < 3 {
		return 0, tr.sy / max(tr.n, 1)
	}
	mt := tr.st / tr.n
	mean = tr.sy / tr.n
	vt := tr.stt/tr.n - mt*mt
	if vt <= 0 {
		return 0, mean
	}
	return (tr.sty/tr.n - mt*mean) / vt, mean
}

func (tr *trend) verdict(window, arrivalRate float64) Stability {
	b, mean := tr.slope()
	st := Stability{Growth: b, MeanInSystem: mean, EndInSystem: int(tr.last)}
	if arrivalRate > 0 {
		st.GrowthPerArrival = b / arrivalRate
	}
	growth := b * window
	if growth > GrowthFloor && growth > mean && st.GrowthPerArrival > GrowthFraction {
		st.Unstable = true
		st.Reason = "waiting queue growing"
	}
	return st
}
