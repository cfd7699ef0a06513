package cost

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func deployment(t testing.TB, model, gpu string, tp int) Deployment {
	t.Helper()
	return Deployment{Model: mustModel(t, model), GPU: mustGPU(t, gpu), TP: tp}
}

func TestDeploymentValidate(t *testing.T) {
	good := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	require.NoError(t, good.Validate())
	tests := []struct {
		name string
		edit func(*Deployment)
		msg  string
	}{
		{"tp zero", func(d *Deployment) { d.TP = 0 }, "cost: deployment tp 0 must be >= 1"},
		{"tp does not divide heads", func(d *Deployment) { d.TP = 3 }, "tp 3 must divide heads 64"},
		{"bad model", func(d *Deployment) { d.Model.Layers = -1 }, "layers -1"},
		{"bad gpu", func(d *Deployment) { d.GPU.MemoryBytes = math.NaN() }, "memory_bytes NaN"},
		{"efficiency above 1", func(d *Deployment) { d.Eff.Bandwidth = 1.5 }, "bandwidth 1.5"},
		{"negative flops efficiency", func(d *Deployment) { d.Eff.FLOPs = -0.1 }, "flops -0.1"},
		{"NaN overhead", func(d *Deployment) { d.Eff.StepOverhead = math.NaN() }, "step_overhead_s NaN"},
		{"negative reserve", func(d *Deployment) { d.RuntimeReserveBytes = -1 }, "runtime_reserve_bytes -1"},
		{"negative peak override", func(d *Deployment) { d.PeakFLOPS = -1 }, "peak_flops -1"},
		{"no peak for the dtype", func(d *Deployment) { d.GPU.PeakFLOPS = PeakFLOPS{FP32: 1} }, "no peak_flops for 2-byte activations"},
		{"no all-reduce under TP", func(d *Deployment) { d.GPU.AllReduce = nil }, "no all_reduce parameters for tp 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := good
			tt.edit(&d)
			err := d.Validate()
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestDeploymentValidateAllowsReplicatedKV(t *testing.T) {
	d := deployment(t, "llama-3.1-8b", "h100-sxm", 16)
	require.NoError(t, d.Validate())
	s, err := d.Shape()
	require.NoError(t, err)
	assert.True(t, s.ReplicatedKV())
}

func TestDeploymentNoAllReduceNeededAtTP1(t *testing.T) {
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	d.GPU.AllReduce = nil
	require.NoError(t, d.Validate())
}

func TestKVBytesPerTokenPerRank(t *testing.T) {
	tests := []struct {
		model string
		tp    int
		want  float64
	}{
		{"llama-3.1-70b", 1, 320 * 1024},
		{"llama-3.1-70b", 2, 160 * 1024},
		{"llama-3.1-70b", 8, 40 * 1024},
		{"llama-3.1-8b", 16, 2 * 32 * 128 * 2}, // one replicated head per rank
		{"qwen2.5-7b", 1, 56 * 1024},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/tp=%d", tt.model, tt.tp), func(t *testing.T) {
			assert.Equal(t, tt.want, deployment(t, tt.model, "h100-sxm", tt.tp).KVBytesPerTokenPerRank())
		})
	}
}

func TestWeightBytesPerRank(t *testing.T) {
	m := mustModel(t, "llama-3.1-70b")
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	assert.InEpsilon(t, m.WeightBytesTotal()/4, d.WeightBytesPerRank(), 1e-12)
	assert.InEpsilon(t, m.MatmulWeightBytes()/4, d.StreamedWeightBytesPerRank(), 1e-12)

	// Replicated KV heads: every rank keeps a whole K/V head.
	r := deployment(t, "llama-3.1-8b", "h100-sxm", 16)
	kv := r.Model.kvProjParams()
	want := (r.Model.TotalParams()-kv)/16 + kv/8
	assert.InEpsilon(t, want*2, r.WeightBytesPerRank(), 1e-12)
}

// TestSPECKVPool: 6.41 GiB of KV memory / 56 KiB per token ≈ 120,000 tokens
// ≈ 93.8 requests of 1280 tokens (SPEC §6).
func TestSPECKVPool(t *testing.T) {
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	mem, err := d.Memory(0.9, 16)
	require.NoError(t, err)
	assert.Equal(t, "6.41", fmt.Sprintf("%.2f", mem.KVPoolBytes/GiB))
	assert.Equal(t, 57344.0, mem.KVBytesPerToken)
	tokens := mem.KVPoolBytes / mem.KVBytesPerToken
	assert.InDelta(t, 120_000, tokens, 200)
	assert.Equal(t, "93.8", fmt.Sprintf("%.1f", tokens/1280))
	assert.Equal(t, 7507, mem.KVBlocks)
	assert.Equal(t, 7507*16, mem.KVTokens)
	assert.True(t, mem.Fits)

	// The article's arithmetic from the rounded 6.41 GiB.
	assert.InDelta(t, 120_000, 6.41*GiB/(56*1024), 100)
	assert.InDelta(t, 93.8, 6.41*GiB/(56*1024)/1280, 0.05)
}

func TestMemoryLlama70BOnH100(t *testing.T) {
	tests := []struct {
		tp        int
		fits      bool
		weightGiB float64
		kvTokens  int
	}{
		{1, false, 131.42, 0},
		{2, true, 65.71, 34672},
		{4, true, 32.85, 499984},
		{8, true, 16.43, 1430592},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("tp=%d", tt.tp), func(t *testing.T) {
			mem, err := deployment(t, "llama-3.1-70b", "h100-sxm", tt.tp).Memory(0.9, 16)
			assert.Equal(t, tt.fits, err == nil)
			assert.Equal(t, tt.fits, mem.Fits)
			assert.InDelta(t, tt.weightGiB, mem.WeightBytes/GiB, 0.005)
			assert.Equal(t, tt.kvTokens, mem.KVTokens)
		})
	}
}

// TestMemoryNoTPInflation: the KV pool of a TP replica is the per-rank pool
// divided by the per-rank bytes per token, not multiplied by TP.
func TestMemoryNoTPInflation(t *testing.T) {
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	mem, err := d.Memory(0.9, 16)
	require.NoError(t, err)
	perRankTokens := (mem.UsableBytes - mem.WeightBytes - mem.RuntimeBytes) / d.KVBytesPerTokenPerRank()
	assert.InDelta(t, perRankTokens, float64(mem.KVTokens), 16)
	// The same pool through whole-model bytes: all ranks' pools over the
	// whole-model KV bytes per token.
	assert.InDelta(t, 4*mem.KVPoolBytes/d.Model.KVBytesPerToken(), float64(mem.KVTokens), 16)
}

func TestMemoryDoesNotFit(t *testing.T) {
	mem, err := deployment(t, "llama-3.1-70b", "h100-sxm", 1).Memory(0.9, 16)
	require.ErrorIs(t, err, ErrDoesNotFit)
	assert.NotErrorIs(t, err, ErrInvalidSpec)
	assert.Equal(t, "cost: llama-3.1-70b on 1×h100-sxm does not fit: weights 131.4 GiB + runtime 1.0 GiB per rank "+
		"leave no 16-token KV block in usable 72.0 GiB (0.90 × 80.0 GiB)", err.Error())
	assert.False(t, mem.Fits)
	assert.Negative(t, mem.KVPoolBytes)
}

func TestMemoryRuntimeReserve(t *testing.T) {
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	def, err := d.Memory(0.9, 16)
	require.NoError(t, err)
	assert.Equal(t, float64(DefaultRuntimeReserveBytes), def.RuntimeBytes)
	d.RuntimeReserveBytes = 3 * GiB
	more, err := d.Memory(0.9, 16)
	require.NoError(t, err)
	assert.InDelta(t, def.KVPoolBytes-2*GiB, more.KVPoolBytes, 1)
}

func TestMemoryArgumentErrors(t *testing.T) {
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	tests := []struct {
		name  string
		d     Deployment
		util  float64
		block int
		msg   string
	}{
		{"util zero", d, 0, 16, "gpu_memory_utilization 0"},
		{"util above one", d, 1.2, 16, "gpu_memory_utilization 1.2"},
		{"util NaN", d, math.NaN(), 16, "gpu_memory_utilization NaN"},
		{"block zero", d, 0.9, 0, "cost: block_size 0 must be >= 1"},
		{"invalid deployment", Deployment{Model: d.Model, GPU: d.GPU}, 0.9, 16, "tp 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.d.Memory(tt.util, tt.block)
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestEfficiencyZeroMeansIdeal(t *testing.T) {
	bw, fl := Efficiency{}.fractions()
	assert.Equal(t, 1.0, bw)
	assert.Equal(t, 1.0, fl)
	require.NoError(t, Efficiency{}.Validate())
	require.NoError(t, DefaultEfficiency().Validate())
}
