package workload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/servesim/servesim/distribution"
)

// A Process is an open-loop arrival process. It is a description; Stream
// makes the per-run state.
type Process interface {
	// Stream starts one realisation driven by r. n is the number of requests
	// the run will take (≤ 0 when unknown); processes that need it, such as
	// vLLM's normalized mode and ramps, return an error without it.
	Stream(r *rand.Rand, n int) (Stream, error)
	// MeanRate returns the long-run offered rate in requests per second
	// (+Inf when every request arrives at time 0).
	MeanRate() float64
	// Validate reports whether the parameters describe a process.
	Validate() error
}

// A RateSetter is a Process whose offered rate is one number that can be
// changed without changing its shape: Poisson, Gamma and Constant. A
// capacity search needs it to probe a process at other rates; a user's own
// Process opts in by implementing it.
type RateSetter interface {
	Process
	// WithRate returns a copy of the process offering rate requests per
	// second (> 0), with every other parameter unchanged.
	WithRate(rate float64) Process
}

// A GammaGaps is a Process whose gaps are Gamma distributed; it reports
// their shape, which vLLM's result files record as "burstiness" (1 for
// Poisson).
type GammaGaps interface {
	GammaShape() float64
}

// A Stream yields absolute arrival times in seconds, non-decreasing, and
// +Inf once it is exhausted. It is not safe for concurrent use.
type Stream interface {
	Next() float64
}

// Poisson arrivals: independent Exp(Rate) gaps, drawn by inverse transform
// (one uniform each). Rate +Inf sends every request at time 0, as vLLM's
// --request-rate inf does. With Normalize, gaps are rescaled as vLLM does
// (see Gamma).
type Poisson struct {
	Rate      float64 `json:"rate" yaml:"rate"`
	Normalize bool    `json:"normalize,omitempty" yaml:"normalize,omitempty"`
}

// Stream starts one realisation.
func (p Poisson) Stream(r *rand.Rand, n int) (Stream, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return Gamma{Rate: p.Rate, Burstiness: 1, Normalize: p.Normalize}.Stream(r, n)
}

// MeanRate returns Rate.
func (p Poisson) MeanRate() float64 { return p.Rate }

// WithRate returns p at another rate (RateSetter).
func (p Poisson) WithRate(rate float64) Process { p.Rate = rate; return p }

// GammaShape returns 1: Poisson gaps are Gamma with shape 1 (GammaGaps).
func (Poisson) GammaShape() float64 { return 1 }

// Validate requires Rate > 0 (+Inf allowed).
func (p Poisson) Validate() error { return rate("poisson", "rate", p.Rate, true) }

// Gamma arrivals: independent gaps ~ Gamma(shape k = Burstiness, scale
// 1/(Rate·k)), so the mean gap is 1/Rate and the gap CV is 1/√k. k = 1 is
// Poisson, k < 1 burstier, k = +Inf constant 1/Rate gaps (vLLM's
// --burstiness). The first request arrives after one gap, as in vLLM.
//
// Normalize reproduces vLLM's `vllm bench serve` with a finite rate and no
// ramp: it draws all n gaps, takes cumulative sums c₁..cₙ, and multiplies
// every cᵢ by (n/Rate)/cₙ so the last request lands exactly at n/Rate. The
// gaps are then no longer independent (they are conditioned on their sum),
// which matters when the arrival process itself is under study; it is off
// by default. It needs n; it keeps the n times in memory up to 2^20
// requests and, past that, draws the gaps twice from a private generator
// (same distribution, O(1) memory).
type Gamma struct {
	Rate       float64 `json:"rate" yaml:"rate"`
	Burstiness float64 `json:"burstiness" yaml:"burstiness"`
	Normalize  bool    `json:"normalize,omitempty" yaml:"normalize,omitempty"`
}

// MeanRate returns Rate.
func (g Gamma) MeanRate() float64 { return g.Rate }

// WithRate returns g at another rate (RateSetter).
func (g Gamma) WithRate(rate float64) Process { g.Rate = rate; return g }

// GammaShape returns Burstiness, the shape of the gaps (GammaGaps).
func (g Gamma) GammaShape() float64 { return g.Burstiness }

// Validate requires Rate > 0 (+Inf allowed) and Burstiness > 0 (+Inf allowed).
func (g Gamma) Validate() error {
	if err := rate("gamma", "rate", g.Rate, true); err != nil {
		return err
	}
	if !(g.Burstiness > 0) {
		return fieldErr("gamma.burstiness", g.Burstiness, "must be > 0")
	}
	return nil
}

// Stream starts one realisation.
func (g Gamma) Stream(r *rand.Rand, n int) (Stream, error) {
	if err := g.Validate(); err != nil {
		return nil, err
	}
	if math.IsInf(g.Rate, 1) {
		return &zeroStream{}, nil
	}
	gap := gapSampler{rate: g.Rate, k: g.Burstiness, r: r}
	if !g.Normalize {
		return &gapStream{gap: gap}, nil
	}
	if n <= 0 {
		return nil, fmt.Errorf("%w: normalized arrivals need the request count, got %d", ErrInvalid, n)
	}
	if n <= maxNormalizedSlice {
		times := make([]float64, n)
		var t float64
		for i := range times {
			t += gap.next(g.Rate)
			times[i] = t
		}
		if t > 0 {
			f := (float64(n) / g.Rate) / t
			for i := range times {
				times[i] *= f
			}
		}
		return &sliceStream{times: times}, nil
	}
	// Past maxNormalizedSlice requests the times are not kept: the gaps
	// come from a private generator seeded from r, drawn once for their
	// sum and again, from the same state, as the stream advances. The
	// arithmetic is the slice's (a running sum times one factor), so
	// memory stays O(1) whatever n.
	src := rand.NewPCG(r.Uint64(), r.Uint64())
	first := *src
	sum := gapSampler{rate: g.Rate, k: g.Burstiness, r: rand.New(&first)}
	var t float64
	for range n {
		t += sum.next(g.Rate)
	}
	f := 1.0
	if t > 0 {
		f = (float64(n) / g.Rate) / t
	}
	return &scaledStream{gap: gapSampler{rate: g.Rate, k: g.Burstiness, r: rand.New(src)}, n: n, f: f}, nil
}

// maxNormalizedSlice is the largest request count whose normalized
// arrival times are kept in a slice (8 bytes each, 8 MiB); larger counts
// regenerate them lazily (scaledStream).
const maxNormalizedSlice = 1 << 20

// scaledStream yields the cumulative gaps times f, n of them.
type scaledStream struct {
	gap  gapSampler
	n, i int
	t, f float64
}

func (s *scaledStream) Next() float64 {
	if s.i >= s.n {
		return math.Inf(1)
	}
	s.i++
	s.t += s.gap.next(s.gap.rate)
	return s.t * s.f
}

// Constant arrivals: one request every 1/Rate seconds, the first at 1/Rate.
type Constant struct {
	Rate float64 `json:"rate" yaml:"rate"`
}

// MeanRate returns Rate.
func (c Constant) MeanRate() float64 { return c.Rate }

// WithRate returns c at another rate (RateSetter).
func (c Constant) WithRate(rate float64) Process { c.Rate = rate; return c }

// Validate requires a finite Rate > 0.
func (c Constant) Validate() error { return rate("constant", "rate", c.Rate, false) }

// Stream starts one realisation; it consumes no random numbers.
func (c Constant) Stream(r *rand.Rand, n int) (Stream, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return Gamma{Rate: c.Rate, Burstiness: math.Inf(1)}.Stream(r, n)
}

// RampStrategy names how a Ramp moves from its start to its end rate.
type RampStrategy string

// The ramp strategies of vLLM's --ramp-up-strategy.
const (
	RampLinear      RampStrategy = "linear"
	RampExponential RampStrategy = "exponential"
)

// Ramp arrivals change rate with the request index, as vLLM's
// --ramp-up-strategy does: request i (0-based) of n is sent at rate
// Start + (End−Start)·i/(n−1) (linear) or Start·(End/Start)^(i/(n−1))
// (exponential), its gap drawn as in Gamma with that rate and Burstiness
// (0 means 1, Poisson). Ramps are never normalized. They need n, and the
// stream is exhausted after n requests.
type Ramp struct {
	Start      float64      `json:"start" yaml:"start"`
	End        float64      `json:"end" yaml:"end"`
	Strategy   RampStrategy `json:"strategy" yaml:"strategy"`
	Burstiness float64      `json:"burstiness,omitempty" yaml:"burstiness,omitempty"`
}

// GammaShape returns the shape of the gaps: Burstiness, or 1 (Poisson)
// when it is 0 (GammaGaps).
func (p Ramp) GammaShape() float64 {
	if p.Burstiness == 0 {
		return 1
	}
	return p.Burstiness
}

// MeanRate returns the harmonic mean of the per-request rates over a long
// ramp: the request count divided by the expected total time.
func (p Ramp) MeanRate() float64 {
	if p.Start == p.End {
		return p.Start
	}
	switch p.Strategy {
	case RampExponential:
		// ∫₀¹ Start^-1 (End/Start)^-x dx = (1/Start − 1/End)/ln(End/Start)
		return math.Log(p.End/p.Start) / (1/p.Start - 1/p.End)
	default:
		// ∫₀¹ dx/(Start + (End−Start)x) = ln(End/Start)/(End−Start)
		return (p.End - p.Start) / math.Log(p.End/p.Start)
	}
}

// Validate requires finite Start, End > 0, a known strategy and a
// Burstiness ≥ 0.
func (p Ramp) Validate() error {
	if err := rate("ramp", "start", p.Start, false); err != nil {
		return err
	}
	if err := rate("ramp", "end", p.End, false); err != nil {
		return err
	}
	if p.Strategy != RampLinear && p.Strategy != RampExponential {
		return fieldErr("ramp.strategy", string(p.Strategy), "must be %q or %q", RampLinear, RampExponential)
	}
	if !(p.Burstiness >= 0) {
		return fieldErr("ramp.burstiness", p.Burstiness, "must be >= 0")
	}
	return nil
}

// Stream starts one realisation.
func (p Ramp) Stream(r *rand.Rand, n int) (Stream, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if n <= 0 {
		return nil, fmt.Errorf("%w: ramp arrivals need the request count, got %d", ErrInvalid, n)
	}
	k := p.Burstiness
	if k == 0 {
		k = 1
	}
	return &rampStream{ramp: p, n: n, gap: gapSampler{k: k, r: r}}, nil
}

// Replay sends request i at Times[i]/Speedup (a self-timed trace). Times
// must be non-decreasing and ≥ 0; Speedup 0 means 1. After the last time
// the stream is exhausted.
type Replay struct {
	Times   []float64 `json:"times" yaml:"times"`
	Speedup float64   `json:"speedup,omitempty" yaml:"speedup,omitempty"`
}

// MeanRate returns (len−1)/(last−first), scaled by Speedup.
func (p Replay) MeanRate() float64 {
	n := len(p.Times)
	if n < 2 || p.Times[n-1] == p.Times[0] {
		return math.Inf(1)
	}
	return float64(n-1) / (p.Times[n-1] - p.Times[0]) * p.speedup()
}

func (p Replay) speedup() float64 {
	if p.Speedup == 0 {
		return 1
	}
	return p.Speedup
}

// Validate requires at least one time, times non-decreasing and finite ≥ 0,
// and Speedup ≥ 0.
func (p Replay) Validate() error {
	if len(p.Times) == 0 {
		return fieldErr("replay.times", nil, "must not be empty")
	}
	if !(p.Speedup >= 0) || math.IsInf(p.Speedup, 1) {
		return fieldErr("replay.speedup", p.Speedup, "must be a finite number >= 0")
	}
	prev := 0.0
	for i, t := range p.Times {
		if !(t >= prev) || math.IsInf(t, 1) {
			return fieldErr(fmt.Sprintf("replay.times[%d]", i), t, "must be finite and >= the previous time %v", prev)
		}
		prev = t
	}
	return nil
}

// WithRate returns the replay sped up so that its mean rate is rate
// (RateSetter): Speedup = rate / the recorded mean rate, so a capacity
// search over a trace scales its timestamps and keeps its shape. A replay
// whose requests all arrive at once has no rate to scale and is returned
// unchanged.
func (p Replay) WithRate(rate float64) Process {
	base := Replay{Times: p.Times}.MeanRate()
	if math.IsInf(base, 1) {
		return p
	}
	p.Speedup = rate / base
	return p
}

// Stream starts the replay; it consumes no random numbers.
func (p Replay) Stream(*rand.Rand, int) (Stream, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &replayStream{times: p.Times, scale: 1 / p.speedup()}, nil
}

// gapSampler draws Gamma(k, 1/(rate·k)) gaps; k = 1 uses the exponential
// inverse transform and k = +Inf the constant 1/rate.
type gapSampler struct {
	rate, k float64
	r       *rand.Rand
}

func (g *gapSampler) next(rate float64) float64 {
	switch {
	case math.IsInf(g.k, 1):
		return 1 / rate
	case g.k == 1:
		return distribution.Exponential{Rate: rate}.Sample(g.r)
	default:
		return distribution.StandardGamma(g.r, g.k) / (rate * g.k)
	}
}

type gapStream struct {
	gap gapSampler
	t   float64
}

func (s *gapStream) Next() float64 {
	s.t += s.gap.next(s.gap.rate)
	return s.t
}

type zeroStream struct{}

func (*zeroStream) Next() float64 { return 0 }

type sliceStream struct {
	times []float64
	i     int
}

func (s *sliceStream) Next() float64 {
	if s.i >= len(s.times) {
		return math.Inf(1)
	}
	t := s.times[s.i]
	s.i++
	return t
}

type replayStream struct {
	times []float64
	scale float64
	i     int
}

func (s *replayStream) Next() float64 {
	if s.i >= len(s.times) {
		return math.Inf(1)
	}
	t := s.times[s.i] * s.scale
	s.i++
	return t
}

type rampStream struct {
	ramp Ramp
	n, i int
	gap  gapSampler
	t    float64
}

func (s *rampStream) Next() float64 {
	if s.i >= s.n {
		// Past the ramp's end the rate is undefined (a linear ramp
		// extrapolated past a falling end goes negative).
		return math.Inf(1)
	}
	progress := float64(s.i) / float64(max(s.n-1, 1))
	s.i++
	var rate float64
	if s.ramp.Strategy == RampExponential {
		rate = s.ramp.Start * math.Pow(s.ramp.End/s.ramp.Start, progress)
	} else {
		rate = s.ramp.Start + (s.ramp.End-s.ramp.Start)*progress
	}
	s.t += s.gap.next(rate)
	return s.t
}
