package cost

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func prefillBatch(tokens int) Batch {
	var b Batch
	b.AddPrefill(tokens, 0)
	return b
}

// synthetic returns measurements of d's own predictions for the batches.
func synthetic(d Deployment, batches []Batch) []Measurement {
	out := make([]Measurement, len(batches))
	for i, b := range batches {
		out[i] = Measurement{Batch: b, Time: d.Step(b).Time}
	}
	return out
}

func countBound(d Deployment, batches []Batch, bound bound) int {
	n := 0
	for _, b := range batches {
		if d.Step(b).Bound == bound {
			n++
		}
	}
	return n
}

// TestFitRecoversKnownParameters generates step times from known knobs and
// fits them back, with and without tensor parallelism.
func TestFitRecoversKnownParameters(t *testing.T) {
	t.Parallel()
	truth := Efficiency{Bandwidth: 0.72, FLOPs: 0.55, StepOverhead: 1.3e-3}
	batches := []Batch{
		DecodeBatch(1, 512), DecodeBatch(8, 1024), DecodeBatch(32, 2048), DecodeBatch(128, 4096),
		DecodeBatch(256, 1024), prefillBatch(2048), prefillBatch(8192),
	}
	tests := []struct {
		model, gpu string
		tp         int
	}{
		{"llama-3.1-8b", "h100-sxm", 1},
		{"llama-3.1-70b", "h100-sxm", 4},
		{"qwen2.5-7b", "rtx4090", 1},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/tp=%d", tt.model, tt.gpu, tt.tp), func(t *testing.T) {
			d := deployment(t, tt.model, tt.gpu, tt.tp)
			d.Eff = truth
			points := synthetic(d, batches)
			compute := countBound(d, batches, boundCompute)
			d.Eff = Efficiency{} // the fit must not peek
			got, err := Fit(d, points)
			require.NoError(t, err)
			assert.InEpsilon(t, truth.Bandwidth, got.Eff.Bandwidth, 1e-9)
			assert.InEpsilon(t, truth.FLOPs, got.Eff.FLOPs, 1e-9)
			assert.InEpsilon(t, truth.StepOverhead, got.Eff.StepOverhead, 1e-6)
			assert.True(t, got.BandwidthFitted)
			assert.True(t, got.FLOPsFitted)
			assert.Equal(t, compute, got.ComputeBound)
			assert.Equal(t, len(batches)-compute, got.MemoryBound)
			assert.Less(t, got.RMSE, 1e-12)
		})
	}
}

// TestFitDecodeITLOnly: (batch, context, ITL) points determine bandwidth and
// overhead; the FLOP fraction keeps its prior.
func TestFitDecodeITLOnly(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	truth := Efficiency{Bandwidth: 0.85, FLOPs: 0.6, StepOverhead: 0.8e-3}
	d.Eff = truth
	var points []Measurement
	for _, p := range []struct {
		batch int
		ctx   float64
	}{{1, 1152}, {8, 1152}, {32, 1152}, {64, 2000}} {
		b := DecodeBatch(p.batch, p.ctx)
		points = append(points, Measurement{Batch: b, Time: d.Step(b).Time})
	}
	d.Eff = Efficiency{FLOPs: 0.42}
	got, err := Fit(d, points)
	require.NoError(t, err)
	assert.InEpsilon(t, 0.85, got.Eff.Bandwidth, 1e-9)
	assert.InEpsilon(t, 0.8e-3, got.Eff.StepOverhead, 1e-6)
	assert.Equal(t, 0.42, got.Eff.FLOPs, "prior kept")
	assert.True(t, got.BandwidthFitted)
	assert.False(t, got.FLOPsFitted)
}

// TestFitNoisyPoints: noise of ±1% leaves the knobs within a few percent.
func TestFitNoisyPoints(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-8b", "a100-80gb", 1)
	d.Eff = Efficiency{Bandwidth: 0.8, FLOPs: 0.6, StepOverhead: 2e-3}
	points := synthetic(d, []Batch{DecodeBatch(1, 500), DecodeBatch(16, 1500), DecodeBatch(64, 1500),
		DecodeBatch(128, 3000), prefillBatch(4096), prefillBatch(8192), prefillBatch(16384)})
	noise := []float64{1.01, 0.99, 1.005, 0.995, 1.01, 0.99, 1.0}
	for i := range points {
		points[i].Time *= noise[i]
	}
	got, err := Fit(d, points)
	require.NoError(t, err)
	assert.InEpsilon(t, 0.8, got.Eff.Bandwidth, 0.03)
	assert.InEpsilon(t, 0.6, got.Eff.FLOPs, 0.03)
	assert.InDelta(t, 2e-3, got.Eff.StepOverhead, 0.5e-3)
	assert.Less(t, got.MaxRelErr, 0.03)
}

func TestFitErrors(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	floor := d.Step(DecodeBatch(1, 1000)).Time
	tests := []struct {
		name   string
		d      Deployment
		points []Measurement
		target error
		msg    string
	}{
		{"one point", d, []Measurement{{DecodeBatch(1, 1000), 0.02}}, ErrFit, "fit needs >= 2 measurements, got 1"},
		{"invalid deployment", Deployment{}, nil, ErrInvalidSpec, "tp 0"},
		{"empty batch", d, []Measurement{{Time: 1}, {Time: 1}}, ErrInvalidSpec, "measurement 0: empty batch"},
		{"bad time", d, []Measurement{{DecodeBatch(1, 1000), 0.02}, {DecodeBatch(2, 1000), -1}}, ErrInvalidSpec, "measurement 1: time -1"},
		{"bad batch", d, []Measurement{{DecodeBatch(1, -5), 0.02}, {DecodeBatch(2, 1000), 0.02}}, ErrInvalidSpec, "decode_context -5"},
		{"faster than peak", d, []Measurement{{DecodeBatch(1, 1000), floor / 2}, {DecodeBatch(64, 1000), floor / 1.5}}, ErrFit, "bandwidth efficiency"},
		{"degenerate", d, []Measurement{{DecodeBatch(4, 1000), 0.02}, {DecodeBatch(4, 1000), 0.021}}, ErrFit, "degenerate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Fit(tt.d, tt.points)
			require.ErrorIs(t, err, tt.target)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}
