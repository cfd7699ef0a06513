package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/servesim/servesim/cost"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestVersionBand(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"": "unrecorded", "0.11.0": "0.11-0.12", "0.12.0": "0.11-0.12", "0.15.1": "0.13-0.17",
		"0.17.0": "0.13-0.17", "0.18.0": "0.18+", "0.19.1": "0.18+", "nightly-5b8c30d62b754b57": "0.18+", "v0.10.2": "0.11-0.12",
		"sglang-0.5.5": "unrecorded", "1.0.0": "unrecorded"} {
		assert.Equal(t, want, VersionBand(v), v)
	}
}

// syntheticJoint returns a crossed design of points on two GPUs and two
// vLLM version bands (two models, short and long prompts, one and 16
// clients), measured as the truth prices them: each point's GPU profile
// with the truth's kernel terms of its GPU and CPU-side terms of its band.
func syntheticJoint(t *testing.T, s Simulator, gpus []string, truth []JointTerm) []Point {
	var pts []Point
	for _, gpu := range gpus {
		for _, version := range []string{"0.12.0", "0.19.0"} {
			for _, model := range []string{"Qwen/Qwen3-8B", "Qwen/Qwen3-32B"} {
				for tp := 1; tp <= 2; tp++ {
					for _, w := range []struct{ in, clients int }{{256, 1}, {2048, 1}, {256, 16}} {
						pts = append(pts, Point{ID: fmt.Sprint(gpu, version, model, tp, w), Source: "synthetic", Model: model, GPU: gpu, TP: tp, Precision: "bf16",
							BackendVersion: version, Concurrency: w.clients, Input: w.in, Output: 16, NumPrompts: w.clients})
					}
				}
			}
		}
	}
	for i := range pts {
		g, err := cost.GPU(pts[i].GPU)
		require.NoError(t, err)
		p := cost.DefaultProfile(g)
		for _, tm := range truth {
			if tm.CPU && tm.Group == VersionBand(pts[i].BackendVersion) || !tm.CPU && tm.Group == pts[i].GPU {
				tm.Knob.Set(&p, tm.Value)
			}
		}
		m, err := s.Predict(pts[i:i+1], p)
		require.NoError(t, err)
		pts[i].Measured = Metrics{TTFT: m[0].TTFT, TPOT: m[0].TPOT}
	}
	return pts
}

// perSeqRows returns the synthetic set's vLLM 0.18+ points at 16
// clients, measured with H100's per-sequence time times factor (the
// term those rows' TPOT sets), and the catalog's per-sequence time.
func perSeqRows(t *testing.T, s Simulator, factor float64) ([]Point, float64) {
	t.Helper()
	h, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	centre := cost.DefaultProfile(h).StepOverhead.PerSeq
	truth := []JointTerm{{Knob: StepPerSeq, Group: "0.18+", CPU: true, Value: factor * centre}}
	var pts []Point
	for _, p := range syntheticJoint(t, s, []string{"h100-sxm"}, truth) {
		if VersionBand(p.BackendVersion) == "0.18+" && p.Concurrency > 1 {
			pts = append(pts, p)
		}
	}
	return pts, centre
}

// TestFitJointRecoversTerms is the joint fit's self-check: a synthetic
// set priced by a known term set, every term moved from its prior by
// 0.4 of its uncertainty (either way), is fitted back from the priors
// within 2% per term (the base step time, whose prior is 0, within 2% of
// its true 0.6 ms).
func TestFitJointRecoversTerms(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	var truth []JointTerm
	sign := 1.0
	gpus := []string{"h100-sxm"}
	for _, gpu := range gpus {
		g, err := cost.GPU(gpu)
		require.NoError(t, err)
		p := cost.DefaultProfile(g)
		for _, tp := range DefaultKernelPriors {
			truth = append(truth, JointTerm{Knob: tp.Knob, Group: gpu, Value: tp.Knob.Get(p) * math.Exp(0.4*sign*tp.Uncertainty)})
			sign = -sign
		}
	}
	h, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	hp := cost.DefaultProfile(h)
	for _, band := range []string{"0.11-0.12", "0.18+"} {
		for _, tp := range DefaultCPUPriors {
			v := tp.Knob.Get(hp) * math.Exp(0.4*sign*tp.Uncertainty)
			if tp.Additive {
				v = 0.001
			}
			truth = append(truth, JointTerm{Knob: tp.Knob, Group: band, CPU: true, Value: v})
			sign = -sign
		}
	}
	pts := syntheticJoint(t, s, gpus, truth)
	fit, err := s.FitJoint(pts, JointOptions{Iterations: 40, MaxSimulations: 400, Noise: -1})
	require.NoError(t, err)
	require.Len(t, fit.Terms, len(truth))
	t.Logf("loss %.3g -> %.3g in %d iterations", fit.StartLoss, fit.Loss, fit.Iterations)
	for _, want := range truth {
		for _, got := range fit.Terms {
			if got.Knob == want.Knob && got.Group == want.Group {
				assert.InEpsilon(t, want.Value, got.Value, 0.02, "%s of %s: prior %.4g, moved %+.2f", want.Knob, want.Group, got.Prior, got.Moved())
			}
		}
	}
}

func TestFitJointRefuses(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	pt := Point{ID: "a", Model: "Qwen/Qwen3-8B", GPU: "h100-sxm", TP: 1, Precision: "bf16", Concurrency: 1, Input: 128, Output: 8, NumPrompts: 1, Measured: Metrics{TPOT: 0.007}}
	for _, opt := range []JointOptions{
		{CPU: []TermPrior{{Knob: StepPerSeq, Uncertainty: 0}}},
		{CPU: []TermPrior{{Knob: StepPerSeq, Uncertainty: math.Inf(1)}}},
		{Kernel: []TermPrior{{Knob: "gemm.nope", Uncertainty: 0.1}}},
		{CPU: []TermPrior{{Knob: StepBase, Uncertainty: 0.1}}}, // a multiplicative prior centred on 0
		{Noise: math.NaN()},
		{Noise: math.Inf(1)},
	} {
		_, err := s.FitJoint([]Point{pt}, opt)
		assert.ErrorIs(t, err, ErrInvalid, "%+v", opt)
	}
	_, err := s.FitJoint(nil, JointOptions{})
	assert.ErrorIs(t, err, ErrInvalid)
}

// TestFitJointStaysInPrior: a set priced with a per-sequence time four
// times its prior's centre, beyond the prior's ×/÷ 2, is fitted to the
// prior's bound and no further, and the fit says it moved the term by
// its whole uncertainty.
func TestFitJointStaysInPrior(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	pts, centre := perSeqRows(t, s, 4)
	fit, err := s.FitJoint(pts, JointOptions{Kernel: []TermPrior{}, CPU: []TermPrior{{Knob: StepPerSeq, Uncertainty: math.Log(2)}}})
	require.NoError(t, err)
	require.Len(t, fit.Terms, 1)
	got := fit.Terms[0]
	assert.InDelta(t, 1, got.Moved(), 0.01, "moved %.3f", got.Moved())
	assert.LessOrEqual(t, got.Value, 2*centre*(1+1e-9))
	assert.Less(t, fit.Loss, fit.StartLoss)
}

func TestJointLoss(t *testing.T) {
	t.Parallel()
	at := func(ratio float64) float64 {
		return JointLoss([]Residual{{Measured: 1, Predicted: ratio}})
	}
	// Quadratic near 0 (e²/2), linear far out (δ·|e|), 0 for none.
	assert.InEpsilon(t, math.Pow(math.Log(1.05), 2)/2, at(1.05), 0.01)
	assert.InDelta(t, 0.25*math.Log(20)-0.0625, at(20), 0.01)
	assert.InDelta(t, at(20), at(1.0/20), 1e-12)
	assert.Zero(t, JointLoss(nil))
	assert.InDelta(t, 0.0625*(math.Sqrt(1+1600)-1), at(0), 1e-9, "a non-positive prediction counts as a log error of 10")
}

func TestSampleCells(t *testing.T) {
	t.Parallel()
	var pts []Point
	for i := range 5 {
		pts = append(pts, Point{ID: fmt.Sprint("a", i), GPU: "h100-sxm", Precision: "bf16"})
	}
	pts = append(pts, Point{ID: "b", GPU: "h100-sxm", Precision: "fp8"}, Point{ID: "c", GPU: "b200", Precision: "bf16"})
	band := func(Point) string { return "x" }
	got, w := sampleCells(pts, band, 2)
	var ids []string
	for _, p := range got {
		ids = append(ids, p.ID)
	}
	assert.Equal(t, []string{"c", "a0", "a2", "b"}, ids)
	assert.Equal(t, []float64{1, 2.5, 2.5, 1}, w)
	all, w := sampleCells(pts, band, 0)
	assert.Len(t, all, 7)
	assert.Equal(t, 7.0, w[0]+w[1]+w[2]+w[3]+w[4]+w[5]+w[6])
}

// TestEstimateNoise checks the per-row noise against theory: for normal
// log errors of standard deviation σ, 1.4826 × the median absolute
// deviation estimates σ (its own relative standard error is about
// 0.82/√n: 1.8% at 2,001 rows; the tolerance is 6%). A shared offset
// does not change it, a tenth of wild rows moves it by less than a
// quarter (the sample standard deviation more than doubles), and it
// never falls below MinNoise.
func TestEstimateNoise(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	const sigma = 0.2
	es := make([]float64, 2001)
	for i := range es {
		es[i] = 0.3 + sigma*r.NormFloat64()
	}
	got := EstimateNoise(es)
	assert.InEpsilon(t, sigma, got, 0.06)
	shifted := make([]float64, len(es))
	for i, v := range es {
		shifted[i] = v - 0.8
	}
	assert.InEpsilon(t, got, EstimateNoise(shifted), 1e-9, "a shared offset is the terms' to fix, not noise")
	wild := append([]float64(nil), es...)
	for i := 0; i < len(wild); i += 10 {
		wild[i] = 5
	}
	assert.Less(t, EstimateNoise(wild), 1.25*sigma)
	assert.Greater(t, stat.StdDev(wild, nil), 2*sigma)
	for _, es := range [][]float64{nil, {0.4}, {0.1, 0.1, 0.1, 0.12}} {
		assert.Equal(t, MinNoise, EstimateNoise(es), "%v", es)
	}
}

// TestFitJointNoiseFromRows: rows that agree on a per-sequence time 1.6
// times the prior's are fitted as with a fixed noise of MinNoise (the
// estimate is the floor: bit for bit the same term); the same rows with
// ±35% scatter of their own (each row twice, once each way, so their
// centre is unchanged) give a larger estimated noise, and the fit moves
// the term less than a fixed 10% noise lets it.
func TestFitJointNoiseFromRows(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	agree, _ := perSeqRows(t, s, 1.6)
	for i := range agree {
		agree[i].Measured.TTFT = 0 // TPOT only: the per-sequence time sets it
	}
	var scatter []Point
	for _, p := range agree {
		for _, f := range []float64{1.35, 1 / 1.35} {
			q := p
			q.ID += fmt.Sprint(f)
			q.Measured.TPOT *= f
			scatter = append(scatter, q)
		}
	}
	fit := func(pts []Point, noise float64) JointFit {
		j, err := s.FitJoint(pts, JointOptions{Kernel: []TermPrior{}, CPU: []TermPrior{{Knob: StepPerSeq, Uncertainty: math.Log(2)}}, Noise: noise})
		require.NoError(t, err)
		require.Len(t, j.Terms, 1)
		return j
	}
	estimated, fixed := fit(agree, 0), fit(agree, MinNoise)
	assert.Equal(t, MinNoise, estimated.Noise)
	assert.Equal(t, fixed.Terms[0].Value, estimated.Terms[0].Value)
	t.Logf("agree: moved %.3f", fixed.Terms[0].Moved())
	estimated, fixed = fit(scatter, 0), fit(scatter, MinNoise)
	assert.Greater(t, estimated.Noise, 0.2, "±35%% scatter: a log spread of about 0.3")
	t.Logf("scatter: estimated noise %.3f, moved %.3f against %.3f at noise %.2f", estimated.Noise, estimated.Terms[0].Moved(), fixed.Terms[0].Moved(), MinNoise)
	assert.Greater(t, estimated.Terms[0].Moved(), 0.0)
	assert.Less(t, estimated.Terms[0].Moved(), fixed.Terms[0].Moved())
}
