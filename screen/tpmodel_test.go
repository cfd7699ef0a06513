package screen

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
)

// TestReferenceSpeedupTable reproduces the TP speed-up table of
// docs/reference-numbers.md#tp-speed-up-table to two decimals.
func TestReferenceSpeedupTable(t *testing.T) {
	t.Parallel()
	ref := ReferenceTPModel()
	require.NoError(t, ref.validate())
	tests := []struct {
		tokens float64
		want   [3]string // TP=2, TP=4, TP=8
	}{
		{1, [3]string{"0.61", "0.72", "0.79"}},
		{4, [3]string{"1.26", "1.81", "2.31"}},
		{8, [3]string{"1.53", "2.42", "3.42"}},
		{16, [3]string{"1.71", "2.91", "4.51"}},
		{32, [3]string{"1.82", "3.25", "5.35"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("T=%v", tt.tokens), func(t *testing.T) {
			got := [3]string{}
			for i, p := range []int{2, 4, 8} {
				got[i] = fmt.Sprintf("%.2f", ref.Speedup(tt.tokens, p))
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestReferencePayloadAndTraffic(t *testing.T) {
	t.Parallel()
	ref := ReferenceTPModel()
	assert.Equal(t, 524288.0, ref.Model.AllReducePayload(32), "512 KiB per call at T=32")
	assert.Equal(t, 120.0*(1<<20), ref.StepTraffic(32, 4), "120 MiB per rank per step at p=4")
	assert.Equal(t, 0.0, ref.StepTraffic(32, 1))
}

func TestTPStepTimeComponents(t *testing.T) {
	t.Parallel()
	ref := ReferenceTPModel()
	t1 := ref.projTime(8)
	assert.InDelta(t, 80*ref.Model.ProjectionFLOPsPerLayer(8)/120e12, t1, 1e-18)
	assert.Equal(t, t1, ref.stepTime(8, 1))
	tau := 8e-6 + 2*3.0/4*8*8192*2/150e9
	assert.InDelta(t, t1/4+160*tau, ref.stepTime(8, 4), 1e-15)
	assert.True(t, math.IsNaN(ref.stepTime(8, 0)))
}

// TestThresholds checks T* against the speed-up it predicts: just below T*
// TP is slower, just above it is faster, and at T* the two are equal.
func TestThresholds(t *testing.T) {
	t.Parallel()
	ref := ReferenceTPModel()
	tests := []struct {
		p    int
		want float64
	}{
		{2, 2.3149},
		{4, 1.5432},
		{8, 1.3228},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("p=%d", tt.p), func(t *testing.T) {
			star, ok := ref.Threshold(tt.p)
			require.True(t, ok)
			assert.InDelta(t, tt.want, star, 5e-5)
			assert.InDelta(t, 1, ref.Speedup(star, tt.p), 1e-12)
			assert.Less(t, ref.Speedup(star*0.99, tt.p), 1.0)
			assert.Greater(t, ref.Speedup(star*1.01, tt.p), 1.0)
		})
	}
}

func TestThresholdNoTokenCountHelps(t *testing.T) {
	t.Parallel()
	slowLink := ReferenceTPModel()
	slowLink.Comm = cost.AlphaBetaTable{{Alpha: 8e-6, BusBandwidth: 1e9}}
	tests := []struct {
		name  string
		model TPModel
		p     int
	}{
		{"bandwidth term exceeds the compute saving", slowLink, 4},
		{"one rank", ReferenceTPModel(), 1},
		{"no comm parameters", TPModel{Model: ReferenceTPModel().Model, ProjFLOPS: 1e12}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			star, ok := tt.model.Threshold(tt.p)
			assert.False(t, ok)
			assert.True(t, math.IsInf(star, 1))
		})
	}
	// With the slow link TP loses at any T.
	for _, tok := range []float64{1, 64, 4096, 1 << 20} {
		assert.Less(t, slowLink.Speedup(tok, 4), 1.0)
	}
}

func TestThresholdWithOtherDelta(t *testing.T) {
	t.Parallel()
	ref := ReferenceTPModel()
	ref.OtherDelta = 1e-3
	star, ok := ref.Threshold(4)
	require.True(t, ok)
	assert.InDelta(t, 1, ref.Speedup(star, 4), 1e-12)
}

func TestTPModelValidate(t *testing.T) {
	t.Parallel()
	err := TPModel{Model: ReferenceTPModel().Model, ProjFLOPS: math.NaN(), OtherDelta: -1}.validate()
	require.ErrorIs(t, err, ErrInvalid)
	for _, msg := range []string{"proj_flops NaN", "at least one all_reduce", "other_delta -1"} {
		assert.Contains(t, err.Error(), msg)
	}
}
