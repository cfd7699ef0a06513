package calibrate

import (
	"fmt"
	"os"
	"sort"
	"testing"
)

// sweeps groups the points into concurrency sweeps: same GPU, TP and
// lengths, ordered by concurrency.
func sweeps(pts []Point) [][]Point {
	by := map[string][]Point{}
	var keys []string
	for _, p := range pts {
		k := fmt.Sprintf("%s tp%d %dx%d", p.GPU, p.TP, p.Input, p.Output)
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], p)
	}
	sort.Strings(keys)
	out := make([][]Point, len(keys))
	for i, k := range keys {
		s := by[k]
		sort.Slice(s, func(a, b int) bool { return s[a].Concurrency < s[b].Concurrency })
		out[i] = s
	}
	return out
}

// twoPoint calibrates the step overhead (base and per sequence) and the
// frontend overhead on the lowest and highest concurrency of a sweep and
// returns the residuals of the points between them.
func twoPoint(t *testing.T, s Simulator, sweep []Point, maxEvaluations int) []Residual {
	t.Helper()
	ends := []Point{sweep[0], sweep[len(sweep)-1]}
	fit, err := s.Fit(ends, testProfile(), FitOptions{Knobs: []Knob{StepPerLayer, StepPerSeq, Frontend}, Metrics: []Metric{TTFT, TPOT}, MaxEvaluations: maxEvaluations})
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.Residuals(sweep[1:len(sweep)-1], fit.Profile, []Metric{TTFT, TPOT})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestTwoPointCalibration calibrates the step overhead (base and per
// sequence) and the frontend overhead on the lowest and highest
// concurrency (8 and 128) of three public sweeps (Qwen3-32B 1024x512 at
// TP 2, 4, 8; 60 evaluations each, to run in about half a second) and
// predicts the middle points (16, 32, 64). Achieved median |error| from
// profile version 7: 2.4% TPOT and 9.1% TTFT over the 9 middle points
// (version 6: 2.5% and 8.9%; version 5: 2.1% and 7.8%); held to the
// issue's 5% on TPOT and to 11% on TTFT. TestTwoPointFull runs every sweep
// (all 54 middle points: 3.0% and 9.4%, version 6 3.7% and 9.2%; the TP 2
// 1024-token sweeps fare worst on TTFT, 34-38%: their
// middle points are the lockstep rows of docs/fidelity.md).
func TestTwoPointCalibration(t *testing.T) {
	t.Parallel()
	var all []Residual
	for _, sw := range sweeps(siliconDense(t)) {
		if sw[0].Input != 1024 || sw[0].Output != 512 {
			continue
		}
		all = append(all, twoPoint(t, Simulator{ModelDir: modelDir(t)}, sw, 60)...)
	}
	tpot, n := MedianAbsError(all, TPOT)
	ttft, _ := MedianAbsError(all, TTFT)
	t.Logf("middle points: TPOT %.1f%%, TTFT %.1f%% (n=%d)", 100*tpot, 100*ttft, n)
	if n != 9 || tpot > 0.05 || ttft > 0.11 {
		t.Errorf("%d middle points: median |error| TPOT %.1f%% (want <= 5%%), TTFT %.1f%% (want <= 11%%)", n, 100*tpot, 100*ttft)
	}
}

// TestTwoPointFull runs the two-point calibration on all 18 sweeps (150
// evaluations each); set SERVESIM_FIDELITY_FULL=1.
func TestTwoPointFull(t *testing.T) {
	if os.Getenv("SERVESIM_FIDELITY_FULL") == "" {
		t.Skip("set SERVESIM_FIDELITY_FULL=1 to run every sweep")
	}
	var all []Residual
	for _, sw := range sweeps(siliconDense(t)) {
		rs := twoPoint(t, Simulator{ModelDir: modelDir(t)}, sw, 150)
		a, _ := MedianAbsError(rs, TPOT)
		b, _ := MedianAbsError(rs, TTFT)
		t.Logf("%s: TPOT %.1f%% TTFT %.1f%%", sw[0].Setup(), 100*a, 100*b)
		all = append(all, rs...)
	}
	tpot, n := MedianAbsError(all, TPOT)
	ttft, _ := MedianAbsError(all, TTFT)
	t.Logf("all %d middle points: TPOT %.1f%%, TTFT %.1f%%", n, 100*tpot, 100*ttft)
	if n != 54 || tpot > 0.05 || ttft > 0.11 {
		t.Errorf("%d middle points: median |error| TPOT %.1f%% (want <= 5%%, achieved 3.7%%), TTFT %.1f%% (want <= 11%%, achieved 9.2%%)", n, 100*tpot, 100*ttft)
	}
}
