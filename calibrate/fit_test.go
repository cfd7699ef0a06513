package calibrate

import (
	"math"
	"testing"

	"github.com/servesim/servesim/cost"
)

func testProfile() cost.Profile {
	p, err := cost.CatalogProfile("h100-sxm")
	if err != nil {
		panic(err)
	}
	return p
}

// TestSelfCheck simulates points under a known profile, takes the
// predictions as measurements, and fits the profile back from a start 20-40%
// off: every freed knob comes back within 2%.
func TestSelfCheck(t *testing.T) {
	t.Parallel()
	truth := testProfile()
	truth.Bandwidth, truth.StepOverhead.PerSeq, truth.FrontendOverhead = 0.78, 60e-6, 0.025
	var pts []Point
	for _, tp := range []int{2, 8} {
		for _, c := range []int{8, 64} {
			for _, io := range [][2]int{{1024, 128}, {4096, 256}} {
				pts = append(pts, Point{ID: "synthetic", Source: "self-check", Model: "Qwen/Qwen3-32B", GPU: "h100-sxm",
					Precision: "bf16", TP: tp, Concurrency: c, Input: io[0], Output: io[1]})
			}
		}
	}
	s := Simulator{Rounds: 4, WarmupRounds: 1, ModelDir: modelDir(t)}
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
	if fit.Loss > fit.StartLoss {
		t.Errorf("loss rose from %v to %v", fit.StartLoss, fit.Loss)
	}
	if fit.Profile.Provenance.FittedOn == "" || fit.Profile.Provenance.Source == "" {
		t.Errorf("fitted profile without provenance: %+v", fit.Profile.Provenance)
	}
	again, _ := s.Fit(pts, start, FitOptions{Knobs: ks, Metrics: []Metric{TTFT, TPOT, OutputThroughput}})
	if again.Profile != fit.Profile {
		t.Errorf("same inputs, different fits: %+v and %+v", fit.Profile, again.Profile)
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

// TestLeaveOneTPOut is the in-CI cross-validation: on the 1024-token rows
// at 8, 32 and 128 clients (18 rows, shortened runs), FitStaged on two TP
// degrees predicts the third (80 evaluations a stage). Achieved: held-out
// median |error| 2.4% TPOT and 31.3% TTFT over 18 rows; TestFidelityFull
// runs all 90 rows.
func TestLeaveOneTPOut(t *testing.T) {
	t.Parallel()
	var pts []Point
	for _, p := range siliconDense(t) {
		if p.Input == 1024 && p.Output >= 512 && (p.Concurrency == 8 || p.Concurrency == 32 || p.Concurrency == 128) {
			pts = append(pts, p)
		}
	}
	s := Simulator{Rounds: 4, ModelDir: modelDir(t)}
	folds, err := s.CrossValidate(pts, byTP, func(train []Point) (cost.Profile, error) {
		return FitStaged(s, train, testProfile(), 80)
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
	if len(folds) != 3 || n != 18 || tpot > 0.08 || ttft > 0.32 {
		t.Errorf("%d folds, %d rows: held-out median |error| TPOT %.1f%% (want <= 8%%), TTFT %.1f%% (want <= 32%%)", len(folds), n, 100*tpot, 100*ttft)
	}
}
