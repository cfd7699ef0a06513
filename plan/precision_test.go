package plan_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
)

// TestPrecisionApply: BF16 keeps a BF16 checkpoint; FP8 halves the weights
// everywhere, and on a GPU with FP8 tensor cores also the KV cache and
// runs at the FP8 peak; all-reduces stay BF16; a checkpoint too narrow for
// the precision is refused.
func TestPrecisionApply(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	h100, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	a100, err := cost.GPU("a100-80gb")
	require.NoError(t, err)

	d, args, err := plan.ApplyPrecision(cost.BF16, cost.Deployment{Model: m, GPU: h100, TP: 4})
	require.NoError(t, err)
	assert.Equal(t, m, d.Model)
	assert.Empty(t, args)
	assert.Zero(t, d.PeakFLOPS, "the GPU's BF16 peak")

	d, args, err = plan.ApplyPrecision(cost.FP8, cost.Deployment{Model: m, GPU: h100, TP: 4})
	require.NoError(t, err)
	assert.Equal(t, [3]float64{1, 1, 2}, [3]float64{d.Model.WeightBytes, d.Model.KVBytes, d.Model.ActBytes})
	sm, err := d.Compile()
	require.NoError(t, err)
	_, peak := sm.Peaks()
	assert.Equal(t, h100.PeakFLOPS.FP8, peak, "the FP8 peak, from the GEMM precision")
	assert.Equal(t, []string{"--quantization", "fp8", "--kv-cache-dtype", "fp8"}, args)
	assert.InDelta(t, 0.5, d.WeightBytesPerRank()/(cost.Deployment{Model: m, GPU: h100, TP: 4}).WeightBytesPerRank(), 1e-12)

	d, args, err = plan.ApplyPrecision(cost.FP8, cost.Deployment{Model: m, GPU: a100, TP: 4})
	require.NoError(t, err)
	assert.Equal(t, [3]float64{1, 2, 2}, [3]float64{d.Model.WeightBytes, d.Model.KVBytes, d.Model.ActBytes}, "A100: weight-only FP8")
	assert.Zero(t, d.PeakFLOPS)
	assert.Equal(t, []string{"--quantization", "fp8"}, args)

	fp8 := m
	fp8.WeightBytes, fp8.KVBytes = 1, 1
	_, _, err = plan.ApplyPrecision(cost.BF16, cost.Deployment{Model: fp8, GPU: h100, TP: 4})
	assert.ErrorContains(t, err, "bf16 needs a checkpoint of 16 bits or more")
	_, args, err = plan.ApplyPrecision(cost.FP8, cost.Deployment{Model: fp8, GPU: h100, TP: 4})
	require.NoError(t, err)
	assert.Equal(t, []string{"--kv-cache-dtype", "fp8"}, args, "an FP8 checkpoint needs no --quantization")

	// gpt-oss's MXFP4 experts: bf16 serves the checkpoint as stored, and
	// --quantization fp8 does not apply to it.
	oss, err := cost.Model("gpt-oss-120b")
	require.NoError(t, err)
	d, args, err = plan.ApplyPrecision(cost.BF16, cost.Deployment{Model: oss, GPU: h100, TP: 2})
	require.NoError(t, err)
	assert.Empty(t, args)
	assert.Equal(t, oss.ExpertWeightBytes, d.Model.ExpertWeightBytes)
	assert.Equal(t, cost.MXFP4, d.Model.ExpertGEMM)
	_, _, err = plan.ApplyPrecision(cost.FP8, cost.Deployment{Model: oss, GPU: h100, TP: 2})
	assert.ErrorContains(t, err, "its experts are mxfp4 already")
}

// TestTextRoundTrips: the typed constants write and read their names, in
// JSON too, and refuse unknown ones.
func TestTextRoundTrips(t *testing.T) {
	t.Parallel()
	for r := plan.NoReason; r <= plan.TooManyReplicas; r++ {
		b, err := r.MarshalText()
		require.NoError(t, err)
		var back plan.Reason
		require.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, r, back)
	}
	assert.Equal(t, "slo-unreachable", plan.Unreachable.String())
	b, err := json.Marshal(struct{ R plan.Reason }{plan.TooExpensive})
	require.NoError(t, err)
	assert.JSONEq(t, `{"R":"too-expensive"}`, string(b))
	var r plan.Reason
	assert.Error(t, r.UnmarshalText([]byte("cheap")))
	_, err = plan.Reason(99).MarshalText()
	assert.Error(t, err)

	for _, p := range []cost.Precision{cost.BF16, cost.FP8} {
		b, err := p.MarshalText()
		require.NoError(t, err)
		q, err := cost.ParsePrecision(string(b))
		require.NoError(t, err)
		assert.Equal(t, p, q)
	}
	// Precisions the cost model knows but a plan does not search.
	_, _, err = plan.ApplyPrecision(cost.INT4, cost.Deployment{})
	assert.ErrorIs(t, err, plan.ErrInvalid)
}
