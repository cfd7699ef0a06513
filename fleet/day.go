package fleet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/servesim/servesim/workload"
)

// MaxBuckets bounds Day.Rates: a minute's resolution over a week.
const MaxBuckets = 7 * 24 * 60

// Day is a long workload whose rate changes: Rates[i] requests per second
// during [i·Bucket, (i+1)·Bucket), over Span seconds. The arrivals keep
// the shape of a base process: a trace's arrival times (Trace: its
// burstiness, repeated end to end as often as the day needs) or a Poisson
// process (Trace nil); the base process is time-changed so that its
// expected count follows the rates exactly (t = Λ⁻¹(u), Λ the cumulative
// rate, u the base process's points in units of its mean gap). The length
// mix comes from Phases (the mix changes over the day), or, without
// Phases, from the trace's own rows: request k takes row k mod n, so the
// trace is replayed with its lengths paired with its gaps.
type Day struct {
	// Span is the simulated time, seconds (86,400 for a day).
	Span float64 `json:"span" yaml:"span"`
	// Bucket is how long each rate lasts, seconds (3,600: a rate an hour).
	Bucket float64 `json:"bucket" yaml:"bucket"`
	// Rates are the request rates, requests/s, one per bucket; they must
	// cover Span (len(Rates)·Bucket ≥ Span). A 0 rate is a silent bucket.
	Rates []float64 `json:"rates" yaml:"rates"`
	// Trace, when set, gives the arrivals' shape (its Time column) and,
	// without Phases, the lengths.
	Trace *workload.Trace `json:"-" yaml:"-"`
	// Phases set the length mix over the day, by start time; the first
	// must start at 0. Empty: the trace's rows.
	Phases []Phase `json:"-" yaml:"-"`
}

// Phase is the length mix from From seconds on.
type Phase struct {
	From    float64
	Lengths workload.Lengths
}

// Scaled returns per-bucket rates of mean rate mean (requests/s) whose
// shape is multipliers: rate i = mean × multipliers[i] / mean(multipliers).
// It is how a per-hour multiplier table or a user's diurnal curve becomes
// Day.Rates.
func Scaled(mean float64, multipliers []float64) []float64 {
	var s float64
	for _, m := range multipliers {
		s += m
	}
	out := make([]float64, len(multipliers))
	if s <= 0 {
		return out
	}
	k := mean * float64(len(multipliers)) / s
	for i, m := range multipliers {
		out[i] = m * k
	}
	return out
}

// Sinusoid returns n multipliers of a diurnal sine: 1 + a·cos(2π(i+½−peak·n/24)/n)
// with a = (1−trough)/(1+trough), so the largest over the smallest is
// 1/trough and the peak falls at hour peak (of 24, scaled to n buckets).
func Sinusoid(n int, peak, trough float64) []float64 {
	a := (1 - trough) / (1 + trough)
	out := make([]float64, n)
	for i := range out {
		x := (float64(i) + 0.5 - peak*float64(n)/24) / float64(n)
		out[i] = 1 + a*math.Cos(2*math.Pi*x)
	}
	return out
}

// Validate checks the span, bucket, rates, trace and phases.
func (d Day) Validate() error {
	switch {
	case !(d.Span > 0) || math.IsInf(d.Span, 1):
		return invalidf("day span %v s must be a finite number > 0", d.Span)
	case !(d.Bucket > 0) || math.IsInf(d.Bucket, 1):
		return invalidf("day bucket %v s must be a finite number > 0 (3600 for a rate an hour)", d.Bucket)
	case len(d.Rates) == 0:
		return invalidf("day rates are empty: give one rate (requests/s) per bucket")
	case len(d.Rates) > MaxBuckets:
		return invalidf("day rates have %d buckets, more than %d: use a longer bucket", len(d.Rates), MaxBuckets)
	case float64(len(d.Rates))*d.Bucket < d.Span*(1-1e-12):
		return invalidf("day rates cover %v s (%d buckets of %v s), less than the span %v s: add rates or shorten the span", float64(len(d.Rates))*d.Bucket, len(d.Rates), d.Bucket, d.Span)
	}
	pos := false
	for i, r := range d.Rates {
		if !(r >= 0) || math.IsInf(r, 1) {
			return invalidf("day rates[%d] %v must be a finite number of requests/s >= 0", i, r)
		}
		pos = pos || r > 0
	}
	if !pos {
		return invalidf("day rates are all 0: no request would arrive")
	}
	if d.Trace != nil {
		if len(d.Trace.Rows) < 2 {
			return invalidf("day trace has %d rows: its shape needs at least 2", len(d.Trace.Rows))
		}
		rows := d.Trace.Rows
		if !(rows[len(rows)-1].Time > rows[0].Time) {
			return invalidf("day trace spans %v s: its arrival times must not all be equal", rows[len(rows)-1].Time-rows[0].Time)
		}
		for i := 1; i < len(rows); i++ {
			if rows[i].Time < rows[i-1].Time || math.IsNaN(rows[i].Time) {
				return invalidf("day trace row %d time %v is before row %d's %v: sort the trace by time", i, rows[i].Time, i-1, rows[i-1].Time)
			}
		}
	}
	if len(d.Phases) == 0 {
		if d.Trace == nil {
			return invalidf("day has neither phases nor a trace: give the length mix")
		}
		return nil
	}
	for i, p := range d.Phases {
		switch {
		case p.Lengths == nil:
			return invalidf("day phases[%d] has no lengths", i)
		case i == 0 && p.From != 0:
			return invalidf("day phases[0] starts at %v s: the first phase must start at 0", p.From)
		case i > 0 && !(p.From > d.Phases[i-1].From):
			return invalidf("day phases[%d] starts at %v s, not after phases[%d] at %v s", i, p.From, i-1, d.Phases[i-1].From)
		}
		if err := p.Lengths.Validate(); err != nil {
			return wrap(fmt.Sprintf("day phases[%d]", i), err)
		}
	}
	return nil
}

// Requests returns the expected request count, ∫₀^Span rate dt.
func (d Day) Requests() float64 { return newWarp(d).cum(d.Span) }

// Workload returns the day as a workload: its arrivals and lengths. The
// caller's run must stop at Span (sim.Config.Horizon) or later: the
// arrivals end at Span.
func (d Day) Workload() (workload.Workload, error) {
	if err := d.Validate(); err != nil {
		return workload.Workload{}, err
	}
	l := lengths{d: d, w: newWarp(d)}
	if d.Trace != nil {
		l.b = newBase(d, nil)
	}
	return workload.Workload{Arrivals: arrivals{d}, Lengths: l}, nil
}

// warp is Λ, the cumulative rate, and its inverse.
type warp struct {
	bucket, span float64
	rates, cums  []float64 // cums[i] = Λ(i·bucket)
	i            int       // Inverse's bucket, advancing
}

func newWarp(d Day) *warp {
	w := &warp{bucket: d.Bucket, span: d.Span, rates: d.Rates, cums: make([]float64, len(d.Rates)+1)}
	for i, r := range d.Rates {
		w.cums[i+1] = w.cums[i] + r*d.Bucket
	}
	return w
}

// cum returns Λ(t) for t in [0, span].
func (w *warp) cum(t float64) float64 {
	i := min(int(t/w.bucket), len(w.rates)-1)
	return w.cums[i] + w.rates[i]*(t-float64(i)*w.bucket)
}

// at returns the time t with Λ(t) = u, or +Inf past the span, by
// binary search: it keeps no state.
func (w *warp) at(u float64) float64 {
	c := *w
	c.i, _ = slices.BinarySearch(w.cums, u)
	c.i = max(c.i-1, 0)
	return c.inverse(u)
}

// inverse returns the time t with Λ(t) = u, or +Inf past the span; calls
// with non-decreasing u are amortised O(1).
func (w *warp) inverse(u float64) float64 {
	if u < w.cums[w.i] {
		w.i, _ = slices.BinarySearch(w.cums, u)
		w.i = max(w.i-1, 0)
	}
	for w.i < len(w.rates) && (w.cums[w.i+1] <= u || w.rates[w.i] == 0) {
		w.i++
	}
	if w.i >= len(w.rates) {
		return math.Inf(1)
	}
	t := float64(w.i)*w.bucket + (u-w.cums[w.i])/w.rates[w.i]
	if t > w.span {
		return math.Inf(1)
	}
	return t
}

// base is the unit-rate shape: point k of the base process in units of
// its mean gap.
type base struct {
	times  []float64 // trace times from its first, nil for Poisson
	period float64   // the trace's repeat period
	rng    *rand.Rand
	u      float64
	k      int
}

func newBase(d Day, r *rand.Rand) *base {
	b := &base{rng: r}
	if d.Trace != nil {
		rows := d.Trace.Rows
		n := len(rows)
		b.times = make([]float64, n)
		for i, row := range rows {
			b.times[i] = row.Time - rows[0].Time
		}
		// The period adds one mean gap after the last arrival, so the
		// repeats join without a double arrival.
		b.period = b.times[n-1] * float64(n) / float64(n-1)
	}
	return b
}

// at returns base point k (trace shapes only): deterministic.
func (b *base) at(k int) float64 {
	n := len(b.times)
	c, j := k/n, k%n
	return (float64(c)*b.period + b.times[j]) * float64(n) / b.period
}

func (b *base) next() float64 {
	if b.times != nil {
		u := b.at(b.k)
		b.k++
		return u
	}
	b.u += -math.Log(1 - b.rng.Float64()) // Exp(1): a unit-rate Poisson process
	b.k++
	return b.u
}

type arrivals struct{ d Day }

func (a arrivals) Stream(r *rand.Rand, _ int) (workload.Stream, error) {
	if err := a.d.Validate(); err != nil {
		return nil, err
	}
	return &stream{b: newBase(a.d, r), w: newWarp(a.d)}, nil
}

func (a arrivals) MeanRate() float64 { return a.d.Requests() / a.d.Span }
func (a arrivals) Validate() error   { return a.d.Validate() }

type stream struct {
	b    *base
	w    *warp
	done bool
}

func (s *stream) Next() float64 {
	if s.done {
		return math.Inf(1)
	}
	t := s.w.inverse(s.b.next())
	s.done = math.IsInf(t, 1)
	return t
}

// lengths draws request i's lengths from the phase of its arrival time:
// exact for a trace shape (its points are a function of i); for Poisson,
// the time at which i requests are expected (Λ⁻¹(i+1)), within the
// process's √i fluctuation of the true arrival.
type lengths struct {
	d Day
	w *warp
	b *base // the trace's shape (read only), nil for Poisson
}

func (l lengths) Sample(r *rand.Rand, i int) (int, int) {
	if len(l.d.Phases) == 0 {
		row := l.d.Trace.Rows[i%len(l.d.Trace.Rows)]
		return row.Input, max(row.Output, 1)
	}
	return l.phase(i).Sample(r, i)
}

// SamplePrompt is Sample with request i's content (workload.PromptSampler):
// a trace row's prefix blocks (workload.Trace.RowContent; none without
// hash ids), or the content of its phase's lengths when they describe any.
// It draws the same random numbers as Sample.
func (l lengths) SamplePrompt(r *rand.Rand, i int, buf []workload.Segment) (int, int, []workload.Segment) {
	if len(l.d.Phases) == 0 {
		in, out := l.Sample(r, i)
		return in, out, l.d.Trace.RowContent(buf, i)
	}
	ph := l.phase(i)
	if ps, ok := ph.(workload.PromptSampler); ok {
		return ps.SamplePrompt(r, i, buf)
	}
	in, out := ph.Sample(r, i)
	return in, out, buf
}

// phase returns the lengths of request i's phase (Phases not empty).
func (l lengths) phase(i int) workload.Lengths {
	if len(l.d.Phases) == 1 {
		return l.d.Phases[0].Lengths
	}
	u := float64(i + 1)
	if l.b != nil {
		u = l.b.at(i)
	}
	t := l.w.at(u)
	p := 0
	for p+1 < len(l.d.Phases) && l.d.Phases[p+1].From <= t {
		p++
	}
	return l.d.Phases[p].Lengths
}

func (l lengths) Mean() (float64, float64) {
	if len(l.d.Phases) == 0 {
		var in, out float64
		for _, row := range l.d.Trace.Rows {
			in += float64(row.Input)
			out += float64(max(row.Output, 1))
		}
		n := float64(len(l.d.Trace.Rows))
		return in / n, out / n
	}
	// Weighted by each phase's expected requests.
	var in, out, tot float64
	for p, ph := range l.d.Phases {
		end := l.d.Span
		if p+1 < len(l.d.Phases) {
			end = min(l.d.Phases[p+1].From, end)
		}
		if ph.From >= end {
			continue
		}
		n := l.w.cum(end) - l.w.cum(ph.From)
		a, b := ph.Lengths.Mean()
		in, out, tot = in+n*a, out+n*b, tot+n
	}
	if tot == 0 {
		return l.d.Phases[0].Lengths.Mean()
	}
	return in / tot, out / tot
}

func (l lengths) Validate() error { return l.d.Validate() }
