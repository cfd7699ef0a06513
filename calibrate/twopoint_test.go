package calibrate

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
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

// twoPoint calibrates a profile on the lowest and highest concurrency of a
// sweep as `servesim calibrate` does (FitStaged from the catalog profile,
// maxEvaluations a stage) and returns it with the residuals of the points
// between them.
func twoPoint(t testing.TB, s Simulator, sweep []Point, maxEvaluations int) (cost.Profile, []Residual) {
	t.Helper()
	ends := []Point{sweep[0], sweep[len(sweep)-1]}
	fit, err := FitStaged(s, ends, testProfile(), maxEvaluations)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := s.Residuals(sweep[1:len(sweep)-1], fit, []Metric{TTFT, TPOT})
	if err != nil {
		t.Fatal(err)
	}
	return fit, rs
}

// TestTwoPointCalibration calibrates three public sweeps (Qwen3-32B
// 1024x512 at TP 2, 4, 8) on their lowest and highest concurrency (8 and
// 128) as `servesim calibrate` does (FitStaged, 60 evaluations a stage, to
// run in one to two seconds) and predicts the middle points (16, 32, 64).
// Achieved median |error| over the 9 middle points: 1.3% TPOT and 6.9%
// TTFT; held to the 5% on TPOT and to 9% on TTFT. (Up to commit
// 5efdf53 the step knobs and the frontend overhead were fitted jointly on
// both metrics, not calibrate's procedure: 2.4% and 9.1%.) The full study
// (docs/fidelity.md, Two-point calibration) runs every sweep.
func TestTwoPointCalibration(t *testing.T) {
	t.Parallel()
	var all []Residual
	for _, sw := range sweeps(siliconDense(t)) {
		if sw[0].Input != 1024 || sw[0].Output != 512 {
			continue
		}
		_, rs := twoPoint(t, Simulator{ModelDir: modelDir(t)}, sw, 60)
		all = append(all, rs...)
	}
	tpot, n := MedianAbsError(all, TPOT)
	ttft, _ := MedianAbsError(all, TTFT)
	t.Logf("middle points: TPOT %.1f%%, TTFT %.1f%% (n=%d)", 100*tpot, 100*ttft, n)
	if n != 9 || tpot > 0.05 || ttft > 0.09 {
		t.Errorf("%d middle points: median |error| TPOT %.1f%% (want <= 5%%), TTFT %.1f%% (want <= 9%%)", n, 100*tpot, 100*ttft)
	}
}

// twoPointSection calibrates every sweep of the calibration rows on its
// two ends and writes the full study's table of the middle points.
func twoPointSection(t *testing.T, s Simulator) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("\n### Two-point calibration\n\n" +
		"Each concurrency sweep of the calibration rows (one TP and ISL x OSL; 8, 16, 32, 64 and 128\n" +
		"clients) calibrated on its two ends as `servesim calibrate` would be given them\n" +
		"(`calibrate.FitStaged` from the catalog profile, " + fmt.Sprint(twoPointEvaluations) + " evaluations a stage: the step\n" +
		"knobs on TPOT at 8 and 128 clients, gemm.max and the frontend overhead on TTFT at 8, the\n" +
		"step knobs again), then its middle points predicted. The issue's target is 5%. Up to commit\n" +
		"5efdf53 this study fitted the step knobs and the frontend overhead on both metrics at once\n" +
		"(`Simulator.Fit`, 150 evaluations), not `calibrate`'s procedure: 3.0% TPOT and 9.4% TTFT over\n" +
		"the 54 middle points. Where gemm.max reaches its bound, 1.0 (the TP 2 and TP 8 sweeps of\n" +
		"1024-token prompts), the catalog profile over-predicts TTFT at 8 clients (TP 2 by about 40%,\n" +
		"TP 8 by about 20%: the closed-loop lockstep of the worst rows above), and the fit can only\n" +
		"shorten it by a faster prefill.\n\n" +
		"| sweep | gemm.max | per layer | per seq | frontend | TPOT | TTFT |\n|---|---:|---:|---:|---:|---:|---:|\n")
	var all []Residual
	for _, sw := range sweeps(siliconDense(t)) {
		p, rs := twoPoint(t, s, sw, twoPointEvaluations)
		a, _ := MedianAbsError(rs, TPOT)
		c, _ := MedianAbsError(rs, TTFT)
		fmt.Fprintf(&b, "| %s tp%d %dx%d | %.3f | %.1f µs | %.1f µs | %.1f ms | %s | %s |\n", sw[0].GPU, sw[0].TP, sw[0].Input, sw[0].Output,
			p.GEMM.Max, 1e6*p.StepOverhead.PerLayer, 1e6*p.StepOverhead.PerSeq, 1000*p.FrontendOverhead, pct(a), pct(c))
		all = append(all, rs...)
	}
	tpot, n := MedianAbsError(all, TPOT)
	ttft, _ := MedianAbsError(all, TTFT)
	fmt.Fprintf(&b, "| **all %d middle points** | | | | | **%s** (%s) | **%s** (%s) |\n", n, pct(tpot), met(tpot, 0.05), pct(ttft), met(ttft, 0.05))
	// docs/cli.md quotes the medians to users of servesim calibrate.
	cli, err := os.ReadFile("../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	if quote := fmt.Sprintf("%s on TPOT and %s on TTFT", pct(tpot), pct(ttft)); !strings.Contains(strings.Join(strings.Fields(string(cli)), " "), quote) {
		t.Errorf("docs/cli.md does not quote the two-point medians %q", quote)
	}
	if n != 54 || tpot > 0.05 || ttft > maxTwoPointTTFT {
		t.Errorf("%d middle points: median |error| TPOT %.1f%% (want <= 5%%), TTFT %.1f%% (want <= %.0f%%)", n, 100*tpot, 100*ttft, 100*maxTwoPointTTFT)
	}
	return b.String()
}

// twoPointEvaluations bounds each FitStaged stage of the full study's
// two-point calibrations; maxTwoPointTTFT is the median TTFT error over
// their middle points the study holds to.
const (
	twoPointEvaluations = 100
	maxTwoPointTTFT     = 0.09
)
