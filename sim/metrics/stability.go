package metrics

import "math"

// Stability is a run's verdict on whether its open-loop load was
// sustainable.
//
// The detector sees the backlog (requests sent and not finished, plus
// those held in the client) at each measured arrival, and keeps batch means
// of it: at most 64 batches of equal arrival counts, merged pairwise as the
// run grows, so memory is constant. It compares the last third of the
// batches with the middle third — the first third absorbs the start-up
// transient — and calls the run unstable when the backlog grew by all of:
//
//   - GrowthT standard errors of the difference (from the batch means'
//     spread, so the queue's own autocorrelation is accounted for),
//   - GrowthFloor requests, and GrowthRelative of the middle third's level,
//   - GrowthFraction requests per arrival in between (λ − μ over λ).
//
// A stable queue's backlog is stationary and fails the first test; at ρ ≥ 1
// it grows like (λ−μ)t and passes all of them. A run also ends early,
// unstable, when the backlog reaches a run's cap on requests in the system.
//
// The verdict needs a window that covers several relaxation times of the
// queue: near ρ = 1 relaxation is slow, and short runs can go either way.
type Stability struct {
	// Judged says what the verdict judged, or why it does not apply:
	// "open loop" (the backlog of requests sent and held, against time),
	// "not applicable: ..." for a closed loop or a finite burst (request
	// rate inf), where no sustained arrival rate exists to judge.
	Judged string `json:"judged"`
	// Unstable is true when the backlog grew without bound.
	Unstable bool `json:"unstable"`
	// Reason says why, empty when stable.
	Reason string `json:"reason,omitempty"`
	// Growth is the backlog's growth between the middle and last thirds,
	// requests per second.
	Growth float64 `json:"growth_per_s"`
	// GrowthPerArrival is that growth per arriving request.
	GrowthPerArrival float64 `json:"growth_per_arrival"`
	// GrowthT is the growth over its standard error (capped at 1e9 when
	// the batch means have no scatter).
	GrowthT float64 `json:"growth_t"`
	// MeanInSystem is the mean backlog seen by measured arrivals.
	MeanInSystem float64 `json:"mean_in_system_at_arrival"`
	// EndInSystem is the backlog seen by the last measured arrival.
	EndInSystem int `json:"end_in_system"`
	// StoppedEarly is true when MaxInSystem ended the run.
	StoppedEarly bool `json:"stopped_early,omitempty"`
}

// What a Stability verdict judged.
const (
	JudgedOpenLoop = "open loop: the backlog (requests sent and not finished, plus those held in the client) against time at the offered rate"
	JudgedBurst    = "not applicable: request rate inf sends every request at t=0, a finite burst with no sustained rate to judge"
	JudgedClosed   = "not applicable: a closed loop sends only when a client is free, so its backlog cannot grow"
)

// Thresholds of the growth detector.
const (
	GrowthT        = 4.0
	GrowthFloor    = 10.0
	GrowthRelative = 0.2
	GrowthFraction = 0.01
	maxBatches     = 64
	maxGrowthT     = 1e9
)

type batch struct{ n, sumT, sumY float64 }

func (b batch) meanT() float64 { return b.sumT / b.n }
func (b batch) meanY() float64 { return b.sumY / b.n }

// A Trend is the stability detector: it keeps batch means of (arrival
// time, backlog) online in constant memory. The zero Trend is ready.
type Trend struct {
	size    float64 // arrivals per batch, doubling
	cur     batch
	batches []batch
	n, sumY float64
	last    float64
}

// Add records the backlog y seen by an arrival at time t.
func (tr *Trend) Add(t, y float64) {
	if tr.size == 0 {
		tr.size = 1
		tr.batches = make([]batch, 0, maxBatches)
	}
	tr.n++
	tr.sumY += y
	tr.last = y
	tr.cur.n++
	tr.cur.sumT += t
	tr.cur.sumY += y
	if tr.cur.n < tr.size {
		return
	}
	tr.batches = append(tr.batches, tr.cur)
	tr.cur = batch{}
	if len(tr.batches) == maxBatches {
		for i := range maxBatches / 2 {
			a, b := tr.batches[2*i], tr.batches[2*i+1]
			tr.batches[i] = batch{n: a.n + b.n, sumT: a.sumT + b.sumT, sumY: a.sumY + b.sumY}
		}
		tr.batches = tr.batches[:maxBatches/2]
		tr.size *= 2
	}
}

// means returns the mean of the batches' mean backlog and mean time.
func means(bs []batch) (y, t float64) {
	for _, b := range bs {
		y += b.meanY()
		t += b.meanT()
	}
	k := float64(len(bs))
	return y / k, t / k
}

// Verdict judges the backlog recorded so far.
func (tr *Trend) Verdict() Stability {
	st := Stability{Judged: JudgedOpenLoop, EndInSystem: int(tr.last)}
	if tr.n > 0 {
		st.MeanInSystem = tr.sumY / tr.n
	}
	k := len(tr.batches) / 3
	if k < 10 {
		return st // fewer than 30 batches (arrivals): too few to judge
	}
	mid, last := tr.batches[k:2*k], tr.batches[len(tr.batches)-k:]
	mm, tm := means(mid)
	ml, tl := means(last)
	d := ml - mm
	// The noise is the batch means' scatter about each third's own
	// least-squares line (so steady growth is not mistaken for noise),
	// inflated by the AR(1) factor √((1+r)/(1−r)) of its pooled lag-1
	// autocorrelation r: batch means of a slowly relaxing queue are still
	// correlated.
	v, r := noise(mid, last)
	r = math.Max(0, r)
	se := math.Sqrt(2*v/float64(k)) * math.Sqrt((1+r)/math.Max(1-r, 1e-3))
	switch {
	case se > 0:
		st.GrowthT = d / se
	case d > 0:
		st.GrowthT = maxGrowthT // growth without noise: certain (kept finite for JSON)
	}
	if tl > tm {
		st.Growth = d / (tl - tm)
	}
	arrivals := float64(len(tr.batches)-2*k) * tr.size // between the thirds' centres
	st.GrowthPerArrival = d / arrivals
	if st.GrowthT > GrowthT && d > GrowthFloor && d > GrowthRelative*mm && st.GrowthPerArrival > GrowthFraction {
		st.Unstable = true
		st.Reason = "waiting queue growing"
	}
	return st
}

// noise returns the pooled residual variance of the batch means of a and
// b about their own least-squares lines, and the residuals' pooled lag-1
// autocorrelation.
func noise(a, b []batch) (variance, lag1 float64) {
	var num, den, dof float64
	for _, bs := range [][]batch{a, b} {
		res := detrend(bs)
		for i, x := range res {
			den += x * x
			if i > 0 {
				num += x * res[i-1]
			}
		}
		dof += float64(len(bs) - 2)
	}
	if den <= 0 {
		return 0, 0
	}
	return den / dof, num / den
}

// detrend returns the residuals of the batch means about their
// least-squares line in the batch index.
func detrend(bs []batch) []float64 {
	n := float64(len(bs))
	var si, sy, sii, siy float64
	for i, b := range bs {
		x, y := float64(i), b.meanY()
		si += x
		sy += y
		sii += x * x
		siy += x * y
	}
	slope := (siy - si*sy/n) / (sii - si*si/n)
	icept := (sy - slope*si) / n
	res := make([]float64, len(bs))
	for i, b := range bs {
		res[i] = b.meanY() - icept - slope*float64(i)
	}
	return res
}
