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
	t.Parallel()
	good := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	require.NoError(t, good.Validate())
	tests := []struct {
		name  string
		edit  func(*Deployment)
		field string
		value any
		limit string
	}{
		{"tp zero", func(d *Deployment) { d.TP = 0 }, "tp", 0, "must be >= 1"},
		{"tp does not divide heads", func(d *Deployment) { d.TP = 3 }, "tp", 3, `must divide heads 64 of model "llama-3.1-70b"`},
		{"bad model", func(d *Deployment) { d.Model.Layers = -1 }, "model.layers", -1, "must be >= 1"},
		{"bad gpu", func(d *Deployment) { d.GPU.MemoryBytes = math.NaN() }, "gpu.memory_bytes", math.NaN(), "must be a finite number > 0"},
		{"efficiency above 1", func(d *Deployment) { d.Eff.Bandwidth = 1.5 }, "efficiency.bandwidth", 1.5, "must be in (0, 1]"},
		{"negative flops efficiency", func(d *Deployment) { d.Eff.FLOPs = -0.1 }, "efficiency.flops", -0.1, "must be in (0, 1]"},
		{"NaN overhead", func(d *Deployment) { d.Eff.StepOverhead = math.NaN() }, "efficiency.step_overhead_s", math.NaN(), "must be a finite number >= 0"},
		{"negative reserve", func(d *Deployment) { d.RuntimeReserveBytes = -1 }, "runtime_reserve_bytes", -1, "must be a finite number >= 0"},
		{"negative peak override", func(d *Deployment) { d.PeakFLOPS = -1 }, "peak_flops", -1, "must be a finite number >= 0"},
		{"no peak for the dtype", func(d *Deployment) { d.GPU.PeakFLOPS = PeakFLOPS{FP32: 1} }, "peak_flops", 0, "no peak for the 2-byte activations"},
		{"no all-reduce under TP", func(d *Deployment) { d.GPU.AllReduce = nil }, "gpu.all_reduce", nil, "so tp 4 has no all-reduce to time"},
		{"bad comm table", func(d *Deployment) { d.Comm = AlphaBetaTable{{Ranks: 4, BusBandwidth: 0}} }, "comm.all_reduce[0].bus_bandwidth_bytes_per_s", 0, "must be a finite number > 0"},
		{"utilisation above one", func(d *Deployment) { d.GPUMemoryUtilization = 1.5 }, "gpu_memory_utilization", 1.5, "must be in (0, 1]"},
		{"NaN utilisation", func(d *Deployment) { d.GPUMemoryUtilization = math.NaN() }, "gpu_memory_utilization", math.NaN(), "must be in (0, 1]"},
		{"negative kv cache memory", func(d *Deployment) { d.KVCacheMemory = -1 }, "kv_cache_memory", -1, "must be a finite number of bytes >= 0"},
		{"infinite kv cache memory", func(d *Deployment) { d.KVCacheMemory = math.Inf(1) }, "kv_cache_memory", math.Inf(1), "must be a finite number of bytes >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := good
			tt.edit(&d)
			requireProblem(t, d.Validate(), tt.field, tt.value, tt.limit)
		})
	}
}

func TestDeploymentValidateAllowsReplicatedKV(t *testing.T) {
	t.Parallel()
	d := deployment(t, "llama-3.1-8b", "h100-sxm", 16)
	require.NoError(t, d.Validate())
	s, err := d.Shape()
	require.NoError(t, err)
	assert.Equal(t, 2, s.KVReplication, "16 ranks over 8 kv heads")
}

func TestDeploymentNoAllReduceNeededAtTP1(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	d.GPU.AllReduce = nil
	require.NoError(t, d.Validate())
}

func TestKVBytesPerTokenPerRank(t *testing.T) {
	t.Parallel()
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

// TestWeightBytesPerRank checks the per-rank weights of Llama-3.1-8B
// (hidden 4096, intermediate 14336, 32 layers, 32 heads, 8 KV heads of 128,
// vocab 128256, BF16) against hand arithmetic:
//
//	per block: Q, O 4096·4096 = 16,777,216 each; K, V 4096·1024 = 4,194,304
//	           each; MLP 3·4096·14336 = 176,160,768; sum 218,103,808
//	blocks:    32 · 218,103,808 = 6,979,321,856
//	embedding: 128256 · 4096 = 525,336,576 (the LM head is as large)
//	total:     6,979,321,856 + 32·2·4096 + 4096 (norms) + 2·525,336,576
//	           = 8,030,261,248 (the model card's 8.03B)
//	streamed:  6,979,321,856 + 525,336,576 = 7,504,658,432 (no embedding
//	           lookup)
//	K/V:       32 · 2 · 4096·1024 = 268,435,456
//
// At TP 1 a rank holds everything. At TP 16 the 8 KV heads are replicated
// (one per rank, 1/8 of the K/V weights) and the rest splits 16 ways:
//
//	resident: (8,030,261,248 − 268,435,456)/16 + 268,435,456/8
//	          = 485,114,112 + 33,554,432 = 518,668,544 → 1,037,337,088 B
//	streamed: (7,504,658,432 − 268,435,456)/16 + 33,554,432
//	          = 452,263,936 + 33,554,432 = 485,818,368 → 971,636,736 B
func TestWeightBytesPerRank(t *testing.T) {
	t.Parallel()
	tests := []struct {
		tp                 int
		resident, streamed float64
	}{
		{1, 2 * 8_030_261_248, 2 * 7_504_658_432},
		{16, 1_037_337_088, 971_636_736},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("tp=%d", tt.tp), func(t *testing.T) {
			t.Parallel()
			d := deployment(t, "llama-3.1-8b", "h100-sxm", tt.tp)
			assert.Equal(t, tt.resident, d.WeightBytesPerRank())
			assert.Equal(t, tt.streamed, d.StreamedWeightBytesPerRank())
		})
	}
}

// TestWeightBytesSplitEvenly: without replicated KV heads every weight
// splits p ways, so the per-rank bytes are exactly 1/p of the whole model's
// (a limiting case of the rule above).
func TestWeightBytesSplitEvenly(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "llama-3.1-70b")
	d := deployment(t, "llama-3.1-70b", "h100-sxm", 4)
	assert.InEpsilon(t, m.WeightBytesTotal()/4, d.WeightBytesPerRank(), 1e-15)
	assert.InEpsilon(t, m.MatmulWeightBytes()/4, d.StreamedWeightBytesPerRank(), 1e-15)
}

// TestReferenceKVPool: 6.41 GiB of KV memory / 56 KiB per token ≈ 120,000
// tokens ≈ 93.8 requests of 1280 tokens
// (docs/reference-numbers.md#kv-pool).
func TestReferenceKVPool(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	d.GPUMemoryUtilization = 0.9
	mem, err := d.Memory(16)
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
	t.Parallel()
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
			t.Parallel()
			mem, err := deployment(t, "llama-3.1-70b", "h100-sxm", tt.tp).Memory(16)
			assert.Equal(t, tt.fits, err == nil)
			assert.Equal(t, tt.fits, mem.Fits)
			assert.InDelta(t, tt.weightGiB, mem.WeightBytes/GiB, 0.005)
			assert.Equal(t, tt.kvTokens, mem.KVTokens)
		})
	}
}

// TestMemoryNoTPInflation: the KV pool of a TP replica is the per-rank pool
// divided by the per-rank bytes per token, not multiplied by TP. Llama-3.1-70B
// at TP 4 on 80 GiB H100s at the default utilisation 0.9:
//
//	usable   0.9 · 80 GiB               = 77,309,411,328 B
//	weights  70,553,706,496 · 2 B / 4   = 35,276,853,248 B
//	reserve  1 GiB                      =  1,073,741,824 B
//	pool                                = 40,958,816,256 B
//	KV/token 2 · 80 layers · 2 KV heads · 128 · 2 B = 81,920 B per rank
//	blocks   ⌊40,958,816,256 / (16 · 81,920)⌋ = 31,249 → 499,984 tokens
//
// (4 × 499,984 would count every token once per rank.)
func TestMemoryNoTPInflation(t *testing.T) {
	t.Parallel()
	mem, err := deployment(t, "llama-3.1-70b", "h100-sxm", 4).Memory(16)
	require.NoError(t, err)
	assert.Equal(t, 0.9, mem.Utilization)
	assert.Equal(t, 40_958_816_256.0, mem.KVPoolBytes)
	assert.Equal(t, 81_920.0, mem.KVBytesPerToken)
	assert.Equal(t, 31_249, mem.KVBlocks)
	assert.Equal(t, 499_984, mem.KVTokens)
}

func TestMemoryDoesNotFit(t *testing.T) {
	t.Parallel()
	mem, err := deployment(t, "llama-3.1-70b", "h100-sxm", 1).Memory(16)
	require.ErrorIs(t, err, ErrDoesNotFit)
	assert.NotErrorIs(t, err, ErrInvalidSpec)
	assert.Equal(t, "cost: llama-3.1-70b on 1×h100-sxm does not fit: weights 131.4 GiB + runtime 1.0 GiB per rank "+
		"leave no 16-token KV block in usable 72.0 GiB (0.90 × 80.0 GiB)", err.Error())
	assert.False(t, mem.Fits)
	assert.Negative(t, mem.KVPoolBytes)
}

func TestMemoryRuntimeReserve(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	def, err := d.Memory(16)
	require.NoError(t, err)
	assert.Equal(t, float64(DefaultRuntimeReserveBytes), def.RuntimeBytes)
	d.RuntimeReserveBytes = 3 * GiB
	more, err := d.Memory(16)
	require.NoError(t, err)
	assert.InDelta(t, def.KVPoolBytes-2*GiB, more.KVPoolBytes, 1)
}

func TestMemoryArgumentErrors(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	tests := []struct {
		name  string
		edit  func(*Deployment)
		block int
		field string
		value any
	}{
		{"util above one", func(d *Deployment) { d.GPUMemoryUtilization = 1.2 }, 16, "gpu_memory_utilization", 1.2},
		{"util NaN", func(d *Deployment) { d.GPUMemoryUtilization = math.NaN() }, 16, "gpu_memory_utilization", math.NaN()},
		{"block zero", func(*Deployment) {}, 0, "block_size", 0},
		{"invalid deployment", func(d *Deployment) { d.TP = 0 }, 16, "tp", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := d
			tt.edit(&d)
			_, err := d.Memory(tt.block)
			requireProblem(t, err, tt.field, tt.value, "")
		})
	}
}

// TestMemoryUtilization: 0 means vLLM's 0.9; a lower fraction shrinks the
// pool by exactly the memory it gives up (RTX 4090: 0.1 · 24 GiB).
func TestMemoryUtilization(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	def, err := d.Memory(16)
	require.NoError(t, err)
	d.GPUMemoryUtilization = 0.9
	explicit, err := d.Memory(16)
	require.NoError(t, err)
	assert.Equal(t, def, explicit)
	d.GPUMemoryUtilization = 0.8
	less, err := d.Memory(16)
	require.NoError(t, err)
	assert.InDelta(t, def.KVPoolBytes-0.1*24*GiB, less.KVPoolBytes, 1)
}

// TestMemoryKVCacheMemory: kv_cache_memory sets the pool directly, whatever
// the utilisation, and must fit beside the weights. Qwen2.5-7B on an RTX
// 4090: 6.41 GiB / (16 · 57,344 B) = 7,501.4 → 7,501 blocks; weights
// 14.19 GiB + 1 GiB + 9 GiB exceed 24 GiB.
func TestMemoryKVCacheMemory(t *testing.T) {
	t.Parallel()
	d := deployment(t, "qwen2.5-7b", "rtx4090", 1)
	d.GPUMemoryUtilization = 0.5 // ignored
	d.KVCacheMemory = 6.41 * GiB
	mem, err := d.Memory(16)
	require.NoError(t, err)
	assert.Equal(t, 6.41*GiB, mem.KVPoolBytes)
	assert.Equal(t, 7_501, mem.KVBlocks)
	assert.Equal(t, mem.WeightBytes+mem.RuntimeBytes+6.41*GiB, mem.UsableBytes)

	d.KVCacheMemory = 9 * GiB
	mem, err = d.Memory(16)
	require.ErrorIs(t, err, ErrDoesNotFit)
	assert.Contains(t, err.Error(), "kv_cache_memory 9.0 GiB per rank exceed the GPU's 24.0 GiB")
	assert.False(t, mem.Fits)

	d.KVCacheMemory = 1 << 20 // 1 MiB holds one 896 KiB block (16 · 56 KiB)
	mem, err = d.Memory(16)
	require.NoError(t, err)
	assert.Equal(t, 1, mem.KVBlocks)
	d.KVCacheMemory = 512 << 10 // 512 KiB < 16 · 56 KiB
	_, err = d.Memory(16)
	require.ErrorIs(t, err, ErrDoesNotFit)
	assert.Contains(t, err.Error(), "holds no 16-token KV block")
}

func TestEfficiencyZeroMeansIdeal(t *testing.T) {
	t.Parallel()
	bw, fl := Efficiency{}.fractions()
	assert.Equal(t, 1.0, bw)
	assert.Equal(t, 1.0, fl)
	require.NoError(t, Efficiency{}.validate())
	require.NoError(t, DefaultEfficiency().validate())
}
