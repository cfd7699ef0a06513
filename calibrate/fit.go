package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/workload"
	"gonum.org/v1/gonum/optimize"
)

// Knob names one free parameter of a cost.Profile, by its YAML key.
type Knob string

// The knobs Fit can free.
const (
	Bandwidth        Knob = "bandwidth"
	GEMMMax          Knob = "gemm.max"
	GEMMHalfTokens   Knob = "gemm.half_tokens"
	AttentionPrefill Knob = "attention.prefill"
	AttentionDecode  Knob = "attention.decode"
	StepBase         Knob = "step_overhead.base_s"
	StepPerLayer     Knob = "step_overhead.per_layer_s"
	StepPerSeq       Knob = "step_overhead.per_seq_s"
	Frontend         Knob = "frontend_overhead_s"
)

// DefaultKnobs are the knobs Fit frees by default: the overheads the
// per-operator data cannot show (per-layer, per-sequence, frontend) and the
// two efficiencies that set decode and prefill speed.
var DefaultKnobs = []Knob{Bandwidth, GEMMMax, StepPerLayer, StepPerSeq, Frontend}

// knobSpec says how a knob is read, written and transformed: fractions
// search on the logit scale, times and token counts on log(v + floor).
type knobSpec struct {
	ptr      func(*cost.Profile) *float64
	fraction bool
	floor    float64 // added before the log, so that 0 is reachable
}

var knobs = map[Knob]knobSpec{
	Bandwidth:        {func(p *cost.Profile) *float64 { return &p.Bandwidth }, true, 0},
	GEMMMax:          {func(p *cost.Profile) *float64 { return &p.GEMM.Max }, true, 0},
	GEMMHalfTokens:   {func(p *cost.Profile) *float64 { return &p.GEMM.HalfTokens }, false, 1},
	AttentionPrefill: {func(p *cost.Profile) *float64 { return &p.Attention.Prefill }, true, 0},
	AttentionDecode:  {func(p *cost.Profile) *float64 { return &p.Attention.Decode }, true, 0},
	StepBase:         {func(p *cost.Profile) *float64 { return &p.StepOverhead.Base }, false, 1e-5},
	StepPerLayer:     {func(p *cost.Profile) *float64 { return &p.StepOverhead.PerLayer }, false, 1e-7},
	StepPerSeq:       {func(p *cost.Profile) *float64 { return &p.StepOverhead.PerSeq }, false, 1e-7},
	Frontend:         {func(p *cost.Profile) *float64 { return &p.FrontendOverhead }, false, 1e-4},
}

// Get returns the knob's value in p.
func (k Knob) Get(p cost.Profile) float64 { return *knobs[k].ptr(&p) }

// Set sets the knob's value in p.
func (k Knob) Set(p *cost.Profile, v float64) { *knobs[k].ptr(p) = v }

func (k Knob) encode(v float64) float64 {
	s := knobs[k]
	if s.fraction {
		v = math.Min(math.Max(v, 1e-6), 1-1e-9)
		return math.Log(v / (1 - v))
	}
	return math.Log(math.Max(v, 0) + s.floor)
}

func (k Knob) decode(x float64) float64 {
	s := knobs[k]
	if s.fraction {
		return 1 / (1 + math.Exp(-x))
	}
	return math.Max(math.Exp(x)-s.floor, 0)
}

// defaultEvaluations bounds Fit's loss evaluations when FitOptions leaves
// MaxEvaluations 0.
const defaultEvaluations = 400

// FitOptions configures Fit.
type FitOptions struct {
	// Knobs are the parameters to fit (nil: DefaultKnobs); the others keep
	// the start profile's values.
	Knobs []Knob
	// Metrics are compared where measured (nil: every metric).
	Metrics []Metric
	// MaxEvaluations bounds the loss evaluations, each a simulation of
	// every point (0: 400).
	MaxEvaluations int
	// FittedOn describes the points for the fitted profile's provenance
	// (empty: a count and the sources).
	FittedOn string
}

// Residual is one metric of one point: measured and predicted.
type Residual struct {
	Point               Point
	Metric              Metric
	Measured, Predicted float64
}

// Error returns the relative error predicted/measured − 1.
func (r Residual) Error() float64 { return r.Predicted/r.Measured - 1 }

// FitResult is the outcome of Fit.
type FitResult struct {
	// Profile is the fitted profile, with provenance.
	Profile cost.Profile
	// Before and After are the residuals under the start profile and the
	// fitted one.
	Before, After []Residual
	// StartLoss and Loss are the mean squared log errors before and after.
	StartLoss, Loss float64
	// Evaluations counts the loss evaluations.
	Evaluations int
}

// Residuals re-simulates the points under profile and pairs each measured
// metric (among metrics; nil: all) with its prediction.
func (s Simulator) Residuals(points []Point, profile cost.Profile, metrics []Metric) ([]Residual, error) {
	pred, err := s.Predict(points, profile)
	if err != nil {
		return nil, err
	}
	return residuals(points, pred, metrics), nil
}

func residuals(points []Point, pred []Metrics, metrics []Metric) []Residual {
	if metrics == nil {
		metrics = AllMetrics
	}
	var out []Residual
	for i, p := range points {
		for _, m := range metrics {
			if v := p.Measured.Get(m); v > 0 {
				out = append(out, Residual{Point: p, Metric: m, Measured: v, Predicted: pred[i].Get(m)})
			}
		}
	}
	return out
}

// loss is the mean squared log error of the residuals; a non-positive
// prediction counts as a log error of 10.
func loss(rs []Residual) float64 {
	if len(rs) == 0 {
		return 0
	}
	s := 0.0
	for _, r := range rs {
		e := 10.0
		if r.Predicted > 0 && !math.IsInf(r.Predicted, 0) {
			e = math.Log(r.Predicted / r.Measured)
		}
		s += e * e
	}
	return s / float64(len(rs))
}

// Fit finds the values of the free knobs that minimise the mean squared
// log error between the points' measured metrics and their re-simulation
// (Nelder–Mead, gonum optimize, on the logit of fractions and the log of
// times), starting from start. Every loss evaluation simulates every point
// with the same seed, so the loss is a deterministic function of the knobs
// and the fit is reproducible.
func (s Simulator) Fit(points []Point, start cost.Profile, opt FitOptions) (FitResult, error) {
	if len(points) == 0 {
		return FitResult{}, invalidf("fit: no points")
	}
	ks := opt.Knobs
	if ks == nil {
		ks = DefaultKnobs
	}
	for _, k := range ks {
		if _, ok := knobs[k]; !ok {
			return FitResult{}, invalidf("fit: unknown knob %q", k)
		}
	}
	before, err := s.Residuals(points, start, opt.Metrics)
	if err != nil {
		return FitResult{}, err
	}
	if len(before) == 0 {
		return FitResult{}, invalidf("fit: no measured metric among %v", opt.Metrics)
	}
	profileAt := func(x []float64) cost.Profile {
		p := start
		for i, k := range ks {
			k.Set(&p, k.decode(x[i]))
		}
		return p
	}
	var evalErr error
	evals := 0
	f := func(x []float64) float64 {
		evals++
		p := profileAt(x)
		if p.Validate() != nil {
			return math.Inf(1)
		}
		rs, err := s.Residuals(points, p, opt.Metrics)
		if err != nil {
			evalErr = err
			return math.Inf(1)
		}
		return loss(rs)
	}
	x0 := make([]float64, len(ks))
	for i, k := range ks {
		x0[i] = k.encode(k.Get(start))
	}
	maxEval := opt.MaxEvaluations
	if maxEval <= 0 {
		maxEval = defaultEvaluations
	}
	res, err := optimize.Minimize(optimize.Problem{Func: f}, x0,
		&optimize.Settings{FuncEvaluations: maxEval, Converger: &optimize.FunctionConverge{Absolute: 1e-6, Relative: 1e-4, Iterations: 4 * len(ks)}},
		&optimize.NelderMead{SimplexSize: 0.5})
	if res == nil {
		return FitResult{}, fmt.Errorf("calibrate: fit: %w", err)
	}
	if evalErr != nil && math.IsInf(res.F, 1) {
		return FitResult{}, evalErr
	}
	fitted := profileAt(res.X)
	fitted.Provenance = provenance(points, start, ks, opt.FittedOn)
	after, err := s.Residuals(points, fitted, opt.Metrics)
	if err != nil {
		return FitResult{}, err
	}
	return FitResult{Profile: fitted, Before: before, After: after, StartLoss: loss(before), Loss: loss(after), Evaluations: evals}, nil
}

func provenance(points []Point, start cost.Profile, ks []Knob, fittedOn string) cost.Provenance {
	srcs := map[string]bool{}
	for _, p := range points {
		srcs[p.Source] = true
	}
	names := make([]string, 0, len(srcs))
	for s := range srcs {
		names = append(names, s)
	}
	sort.Strings(names)
	if fittedOn == "" {
		fittedOn = fmt.Sprintf("%d points of %s", len(points), strings.Join(names, ", "))
	}
	kn := make([]string, len(ks))
	for i, k := range ks {
		kn[i] = string(k)
	}
	return cost.Provenance{
		Source:   fmt.Sprintf("calibrate.Fit of %s from profile %q (%s)", strings.Join(kn, ", "), start.GPU, start.Provenance.Source),
		FittedOn: fittedOn,
		Version:  start.Provenance.Version + "+fit",
	}
}

// Fold is one fold of a cross-validation: the profile fitted without the
// held-out group, and the held-out points' residuals under it.
type Fold struct {
	Group   string
	Profile cost.Profile
	Test    []Residual
}

// CrossValidate fits one profile per group (by group(point)) on the other
// groups' points with fit (for example FitStaged, or Fit with options) and
// predicts the held-out group with it: leave one group out. Folds come in
// sorted group order.
func (s Simulator) CrossValidate(points []Point, group func(Point) string, fit func(train []Point) (cost.Profile, error), metrics []Metric) ([]Fold, error) {
	byGroup := map[string][]Point{}
	for _, p := range points {
		byGroup[group(p)] = append(byGroup[group(p)], p)
	}
	gs := make([]string, 0, len(byGroup))
	for g := range byGroup {
		gs = append(gs, g)
	}
	slices.Sort(gs)
	if len(gs) < 2 {
		return nil, invalidf("cross-validation needs >= 2 groups, got %d", len(gs))
	}
	var folds []Fold
	for _, g := range gs {
		var train []Point
		for _, h := range gs {
			if h != g {
				train = append(train, byGroup[h]...)
			}
		}
		prof, err := fit(train)
		if err != nil {
			return nil, fmt.Errorf("fold %s: %w", g, err)
		}
		test, err := s.Residuals(byGroup[g], prof, metrics)
		if err != nil {
			return nil, fmt.Errorf("fold %s: %w", g, err)
		}
		folds = append(folds, Fold{Group: g, Profile: prof, Test: test})
	}
	return folds, nil
}

// MedianAbsError returns the median of |Error| over the residuals of
// metric m, and how many there are (NaN, 0 when none).
func MedianAbsError(rs []Residual, m Metric) (float64, int) {
	var es []float64
	for _, r := range rs {
		if r.Metric == m {
			es = append(es, math.Abs(r.Error()))
		}
	}
	return median(es), len(es)
}

// median returns the median of xs (NaN for none), leaving xs sorted.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	if n := len(xs); n%2 == 0 {
		return (xs[n/2-1] + xs[n/2]) / 2
	}
	return xs[len(xs)/2]
}

// StepKnobs are the knobs of the decode step that TPOT identifies: the
// overheads per layer and per sequence. The weight-streaming fraction
// (Bandwidth) is not among them: it is a kernel property, which
// per-operator timings measure (the fraction of the datasheet bandwidth
// that GEMMs of a few tokens reach), while in serving TPOT it trades off
// against the per-layer overhead: fitted with them on H100's calibration
// rows it ran into its upper bound, 1.0, against 0.86 measured per
// operator, and the per-layer overhead it left, moved to B200, made B200's
// TPOT 24% too slow at TP 8 (docs/fidelity.md). Fit it with Simulator.Fit
// and Bandwidth among FitOptions.Knobs on a GPU without per-operator data.
var StepKnobs = []Knob{StepPerLayer, StepPerSeq}

// PrefillKnobs are the knobs that TTFT at low load identifies, where a
// request's first token is one prefill plus the frontend overhead: the
// GEMM efficiency of large steps and the frontend overhead. TPOT sees the
// GEMM efficiency only through the prefill chunks that share decode steps,
// too weakly to fix it: fitted on TPOT alone on B200's rows it came out
// 0.38 and moved to H100 predicted H100's TTFT 52% off in median, fitted
// on low-load TTFT 0.67 and 23% (docs/fidelity.md#leave-h100-out-fitted-on-b200-predicting-h100).
var PrefillKnobs = []Knob{GEMMMax, Frontend}

// LowLoad is the concurrency up to which FitStaged reads TTFT as one
// prefill plus the frontend overhead, with little queueing: the clients of
// a closed loop, the requests an open loop holds in flight (InFlight).
const LowLoad = 16

// InFlight returns how many requests a point's run held at once: a closed
// loop's clients; for an open loop, by Little's law, its arrival rate (a
// replay's mean rate) times its mean end-to-end latency (measured, else
// TTFT + (Output − 1)·TPOT), at most its MaxConcurrency; for requests all
// sent at once, their count (at most MaxConcurrency). It is never more than
// the run's requests (NumPrompts, or the replay's), and 0 when the
// measurements cannot say.
func InFlight(pt Point) float64 {
	n := inFlight(pt)
	if total := max(pt.NumPrompts, len(pt.Arrivals)); total > 0 {
		n = min(n, float64(total))
	}
	return n
}

func inFlight(pt Point) float64 {
	if pt.Concurrency > 0 {
		return float64(pt.Concurrency)
	}
	rate := pt.Rate
	if len(pt.Arrivals) > 0 {
		rate = workload.Replay{Times: pt.Arrivals}.MeanRate()
	}
	var n float64
	switch e2e := pt.Measured.E2E; {
	case math.IsInf(rate, 1):
		n = math.Inf(1) // all at once: every request (InFlight caps it)
	case !(rate > 0):
		return 0
	case e2e > 0:
		n = rate * e2e
	case pt.Measured.TTFT > 0 && pt.Measured.TPOT > 0:
		n = rate * (pt.Measured.TTFT + float64(max(pt.Output-1, 0))*pt.Measured.TPOT)
	default:
		return 0
	}
	if pt.MaxConcurrency > 0 {
		n = min(n, float64(pt.MaxConcurrency))
	}
	return n
}

// FitStaged fits each knob on the measurements that identify it: the step
// knobs (StepKnobs) on the TPOT of every point, then the prefill knobs
// (PrefillKnobs) on the TTFT of the points with at most LowLoad requests in
// flight (InFlight: closed loops of up to LowLoad clients, open loops whose
// rate times latency is that low), where TTFT is one prefill plus the
// frontend rather than queueing behind other prefills, then the step knobs
// again, since a prefill's speed sets how
// long the decode steps it shares take. Without low-load points the GEMM
// efficiency is fitted with the step knobs on TPOT and the frontend
// overhead keeps the start's value. It returns the profile with
// provenance. maxEvaluations bounds each stage's loss evaluations (0:
// Fit's default).
func FitStaged(s Simulator, points []Point, start cost.Profile, maxEvaluations int) (cost.Profile, error) {
	var low []Point
	for _, pt := range points {
		if n := InFlight(pt); n > 0 && n <= LowLoad {
			low = append(low, pt)
		}
	}
	type stage struct {
		points []Point
		knobs  []Knob
		metric Metric
	}
	stages := []stage{{points, StepKnobs, TPOT}, {low, PrefillKnobs, TTFT}, {points, StepKnobs, TPOT}}
	if len(low) == 0 {
		stages = []stage{{points, append([]Knob{GEMMMax}, StepKnobs...), TPOT}}
	}
	p := start
	for _, st := range stages {
		r, err := s.Fit(st.points, p, FitOptions{Knobs: st.knobs, Metrics: []Metric{st.metric}, MaxEvaluations: maxEvaluations})
		if err != nil {
			return cost.Profile{}, err
		}
		p = r.Profile
	}
	knobs := append(append([]Knob{}, StepKnobs...), PrefillKnobs...)
	if len(low) == 0 {
		knobs = append([]Knob{GEMMMax}, StepKnobs...)
	}
	p.Provenance = provenance(points, start, knobs, "")
	p.Provenance.Source = "calibrate.FitStaged (step knobs on TPOT, gemm.max and frontend on TTFT at <= 16 requests in flight, step knobs again) from " + start.Provenance.Source
	return p, nil
}
