package calibrate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeldOut: a synthetic set priced with a per-sequence time 1.8 times
// its prior's centre, held out by model: each model's points, predicted by
// the fit on the other model's, come out closer than under the prior, and
// the folds are the same on one worker as on several.
func TestHeldOut(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	h, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	centre := cost.DefaultProfile(h).StepOverhead.PerSeq
	var truth []JointTerm
	for _, band := range []string{"0.11-0.12", "0.18+"} {
		truth = append(truth, JointTerm{Knob: StepPerSeq, Group: band, CPU: true, Value: 1.8 * centre})
	}
	var pts []Point
	for _, p := range syntheticJoint(t, s, []string{"h100-sxm"}, truth) {
		if p.Concurrency > 1 {
			pts = append(pts, p)
		}
	}
	opt := JointOptions{Kernel: []TermPrior{}, CPU: []TermPrior{{Knob: StepPerSeq, Uncertainty: math.Log(2)}}, Iterations: 4}
	model := func(p Point) string { return p.Model }
	folds, err := s.HeldOut(pts, model, opt)
	require.NoError(t, err)
	require.Len(t, folds, 2)
	for _, f := range folds {
		var held []Point
		for _, p := range pts {
			if p.Model == f.Key {
				held = append(held, p)
			}
		}
		prior := defaultProfileResiduals(t, s, held, []Metric{TPOT, TTFT})
		assert.Less(t, JointLoss(f.Residuals), JointLoss(prior), f.Key)
		assert.Len(t, f.Residuals, len(prior), f.Key)
	}
	one := s
	one.Workers = 1
	again, err := one.HeldOut(pts, model, opt)
	require.NoError(t, err)
	assert.Equal(t, JointFoldResiduals(folds), JointFoldResiduals(again))
	_, err = s.HeldOut(pts, func(Point) string { return "all" }, opt)
	assert.ErrorIs(t, err, ErrInvalid)
}

// TestJoint: on a synthetic set priced with a per-sequence time 1.8
// times its prior's centre, the report names the term, says the fit moved
// it up, and its fitted median TPOT error is below the prior's; a set the
// audit leaves empty is an error.
func TestJoint(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	pts, _ := perSeqRows(t, s, 1.8)
	opt := JointOptions{Kernel: []TermPrior{}, CPU: []TermPrior{{Knob: StepPerSeq, Uncertainty: math.Log(2)}}, Iterations: 4}
	var b strings.Builder
	j, err := s.Joint(pts, opt)
	require.NoError(t, err)
	require.NoError(t, j.WriteText(&b))
	out := b.String()
	t.Log(out)
	assert.Contains(t, out, fmt.Sprintf("joint fit: %d runs (0 flagged", len(pts)))
	fit, err := s.FitJoint(pts, opt)
	require.NoError(t, err)
	require.Len(t, fit.Terms, 1)
	assert.Greater(t, fit.Terms[0].Moved(), 0.3)
	assert.Contains(t, out, JointTermTable(fit))
	var before, after float64
	_, err = fmt.Sscanf(out[strings.Index(out, "at the priors, every run in sample: tpot median |error| "):], "at the priors, every run in sample: tpot median |error| %f%%", &before)
	require.NoError(t, err)
	_, err = fmt.Sscanf(out[strings.Index(out, "fitted, every run in sample: tpot median |error| "):], "fitted, every run in sample: tpot median |error| %f%%", &after)
	require.NoError(t, err)
	assert.Less(t, after, before)
	_, err = s.Joint(nil, opt)
	assert.ErrorIs(t, err, ErrInvalid)
}
