package calibrate

import (
	"math"
	"testing"

	"github.com/servesim/servesim/cost"
)

func testProfile() cost.Profile {
	p, err := catalogProfile("h100-sxm")
	if err != nil {
		panic(err)
	}
	return p
}

// TestSelfCheck simulates points under a known profile, takes the
// predictions as measurements, and fits the profile back from a start 20-40%
// off: every freed knob comes back within 2%. Four short steady-state
// points (TP 2 and 8, 8 and 64 clients) keep it fast.
func TestSelfCheck(t *testing.T) {
	t.Parallel()
	truth := testProfile()
	truth.Bandwidth, truth.StepOverhead.PerSeq, truth.FrontendOverhead = 0.78, 60e-6, 0.025
	var pts []Point
	for _, tp := range []int{2, 8} {
		for _, c := range []int{8, 64} {
			pts = append(pts, Point{ID: "synthetic", Source: "self-check", Model: "Qwen/Qwen3-32B", GPU: "h100-sxm",
				Precision: "bf16", TP: tp, Concurrency: c, Input: 1024, Output: 64})
		}
	}
	s := Simulator{Rounds: 2, WarmupRounds: 1, ModelDir: modelDir(t)}
	pred, err := s.Predict(pts, truth)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pts {
		pts[i].Measured = pred[i]
	}
	start := truth
	start.Bandwidth, start.StepOverhead.PerSeq, start.FrontendOverhead = 0.6, 40e-6, 0.035
	ks := []Knob{Bandwidth, StepPerSeq, Frontend}
	fit, err := s.Fit(pts, start, FitOptions{Knobs: ks, Metrics: []Metric{TTFT, TPOT, OutputThroughput}})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		got, want := k.Get(fit.Profile), k.Get(truth)
		if math.Abs(got/want-1) > 0.02 {
			t.Errorf("%s fitted %.4g, want %.4g within 2%% (loss %.2g after %d evaluations)", k, got, want, fit.Loss, fit.Evaluations)
		}
	}
	t.Logf("%d evaluations, loss %.2g", fit.Evaluations, fit.Loss)
	if fit.Loss > fit.StartLoss {
		t.Errorf("loss rose from %v to %v", fit.StartLoss, fit.Loss)
	}
	if fit.Profile.Provenance.FittedOn == "" || fit.Profile.Provenance.Source == "" {
		t.Errorf("fitted profile without provenance: %+v", fit.Profile.Provenance)
	}
	again, _ := s.Fit(pts[:1], start, FitOptions{Knobs: ks, Metrics: []Metric{TTFT, TPOT}, MaxEvaluations: 10})
	once, _ := s.Fit(pts[:1], start, FitOptions{Knobs: ks, Metrics: []Metric{TTFT, TPOT}, MaxEvaluations: 10})
	if again.Profile != once.Profile {
		t.Errorf("same inputs, different fits: %+v and %+v", once.Profile, again.Profile)
	}
}

func TestKnobTransforms(t *testing.T) {
	t.Parallel()
	for k := range knobs {
		for _, v := range []float64{0.3, 0.9, 1e-4} {
			if got := k.decode(k.encode(v)); math.Abs(got-v) > 1e-9*math.Max(1, v) {
				t.Errorf("%s: decode(encode(%v)) = %v", k, v, got)
			}
		}
	}
	if _, err := (Simulator{}).Fit([]Point{{}}, testProfile(), FitOptions{Knobs: []Knob{"nope"}}); err == nil {
		t.Error("unknown knob accepted")
	}
}

// TestLeaveOneTPOut is the in-CI cross-validation, cut down to run in
// about a second: the nine 1024x128 calibration rows at 8, 32 and 128
// clients; for each TP, FitStaged on the other two from a start 15% off
// the catalog profile (gemm.max and the per-layer overhead 15% high, the
// per-sequence overhead 15% low; the bandwidth, a per-operator value, is
// not fitted), 30 evaluations a stage, predicts the third. Achieved with
// profile version 7: held-out median |error| 1.4% TPOT and 13.9% TTFT over
// 9 rows (version 6: 2.0% and 16.2%; version 5, its bandwidth fitted too:
// 1.4% and 14.5%), held to
// 3% and 18%. Here each fold fits gemm.max and the frontend
// overhead on two TTFT rows (8 clients), so TTFT is looser than when
// gemm.max was fitted on TPOT (1.2% and 6.9%); FitStaged moved it to TTFT
// for the prediction across GPUs (docs/fidelity.md). TestFidelityFull runs
// the full protocol on all 90 rows.
func TestLeaveOneTPOut(t *testing.T) {
	t.Parallel()
	var pts []Point
	for _, p := range siliconDense(t) {
		if p.Input == 1024 && p.Output == 128 && (p.Concurrency == 8 || p.Concurrency == 32 || p.Concurrency == 128) {
			pts = append(pts, p)
		}
	}
	start := testProfile()
	start.GEMM.Max, start.StepOverhead.PerLayer, start.StepOverhead.PerSeq = 1.15*start.GEMM.Max, 1.15*start.StepOverhead.PerLayer, 0.85*start.StepOverhead.PerSeq
	s := Simulator{ModelDir: modelDir(t)}
	folds, err := s.CrossValidate(pts, byTP, func(train []Point) (cost.Profile, error) {
		return FitStaged(s, train, start, 30)
	}, []Metric{TTFT, TPOT})
	if err != nil {
		t.Fatal(err)
	}
	var all []Residual
	for _, f := range folds {
		all = append(all, f.Test...)
	}
	tpot, n := MedianAbsError(all, TPOT)
	ttft, _ := MedianAbsError(all, TTFT)
	t.Logf("held-out: TPOT %.1f%%, TTFT %.1f%% (n=%d)", 100*tpot, 100*ttft, n)
	if len(folds) != 3 || n != 9 || tpot > 0.03 || ttft > 0.18 {
		t.Errorf("%d folds, %d rows: held-out median |error| TPOT %.1f%% (want <= 3%%), TTFT %.1f%% (want <= 18%%)", len(folds), n, 100*tpot, 100*ttft)
	}
}

// TestFitStagedOpenLoop: open-loop runs, the usual `vllm bench serve
// --request-rate` files, reach the prefill knobs too. Runs at 1 req/s
// (a quarter of a request in flight) with 256- and 4096-token prompts, and
// one at 40 req/s (more than LowLoad in flight), simulated under a known
// profile, are fitted back by FitStaged from a start with the frontend
// overhead and gemm.max 40% and 36% off: every knob it fits returns
// within 2%. Before InFlight counted open loops, FitStaged saw no low-load
// point here and left the frontend overhead at the start's value.
func TestFitStagedOpenLoop(t *testing.T) {
	t.Parallel()
	truth := testProfile()
	truth.FrontendOverhead, truth.GEMM.Max = 0.02, 0.55
	var pts []Point
	for _, p := range []struct {
		rate    float64
		in, out int
	}{{1, 256, 32}, {1, 4096, 32}, {40, 1024, 256}} {
		pts = append(pts, Point{ID: "synthetic", Source: "self-check", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm",
			Precision: "bf16", TP: 1, Rate: p.rate, NumPrompts: 100, Input: p.in, Output: p.out})
	}
	s := Simulator{Seed: 3}
	pred, err := s.Predict(pts, truth)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pts {
		pts[i].Measured = pred[i]
		pts[i].Measured.E2E = 0 // as vllm bench serve saves it by default: e2el is not among its percentile metrics
	}
	if n := InFlight(pts[0]); !(n > 0.1 && n < 1) {
		t.Errorf("1 req/s: %.2f requests in flight, want a fraction of one (E2E about 0.25 s)", n)
	}
	if n := InFlight(pts[2]); !(n > LowLoad) {
		t.Errorf("40 req/s: %.2f requests in flight, want more than %d", n, LowLoad)
	}
	start := truth
	start.FrontendOverhead, start.GEMM.Max = 0.012, 0.75
	fit, err := FitStaged(s, pts, start, 200)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Knob{Frontend, GEMMMax, StepPerLayer, StepPerSeq} {
		if got, want := k.Get(fit), k.Get(truth); math.Abs(got/want-1) > 0.02 {
			t.Errorf("%s fitted %.4g, want %.4g within 2%%", k, got, want)
		}
	}
}
