package cost

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrecisionBits(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p          Precision
		name       string
		bits, kv   float64
		parseAlias string
	}{
		{BF16, "bf16", 16, 2, "bfloat16"},
		{FP16, "fp16", 16, 2, "half"},
		{FP8, "fp8", 8, 1, "float8_e4m3fn"},
		{INT8, "int8", 8, 1, "w8a8"},
		{FP4, "nvfp4", 4 + 8.0/16, 0.5 + 1.0/16, "fp4"},  // FP8 scale per 16; vLLM's nvfp4 cache
		{MXFP4, "mxfp4", 4 + 8.0/32, 0, "MXFP4"},         // E8M0 scale per 32; no such cache
		{INT4, "int4", 4 + 16.0/128 + 4.0/128, 0, "awq"}, // group 128: 16-bit scale, 4-bit zero
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.name, tt.p.String())
			assert.Equal(t, tt.bits, tt.p.bits())
			assert.Equal(t, tt.bits/8, tt.p.Bytes())
			assert.Equal(t, tt.kv, tt.p.kvBytes())
			for _, s := range []string{tt.name, tt.parseAlias} {
				got, err := ParsePrecision(s)
				require.NoError(t, err)
				assert.Equal(t, tt.p, got)
			}
		})
	}
	_, err := ParsePrecision("fp6")
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.Contains(t, err.Error(), `precision "fp6" must be one of bf16, fp16, fp8, int8, nvfp4, mxfp4, int4`)
}

// TestPrecisionPeak: each format runs at the GPU's peak for it, or at the
// 16-bit peak where the GPU lacks it (weight-only kernels).
func TestPrecisionPeak(t *testing.T) {
	t.Parallel()
	tests := []struct {
		gpu  string
		p    Precision
		want float64
	}{
		{"h100-sxm", BF16, 989.4e12},
		{"h100-sxm", FP8, 1978.9e12},
		{"h100-sxm", FP4, 989.4e12}, // no FP4 tensor cores on Hopper
		{"h100-sxm", MXFP4, 989.4e12},
		{"h100-sxm", INT4, 989.4e12}, // W4A16
		{"a100-80gb", FP8, 312e12},   // no FP8 on Ampere
		{"a100-80gb", INT8, 624e12},
		{"b200", FP4, 9e15},
		{"b200", MXFP4, 2.25e15}, // W4A16: vLLM runs MXFP4 experts with 16-bit (or MXFP8) activations
		{"b300", FP4, 13.5e15},
		{"gb200", FP8, 5e15},
		{"rtx5090", FP4, 1676e12},
		{"l4", FP8, 242.5e12},
	}
	for _, tt := range tests {
		t.Run(tt.gpu+" "+tt.p.String(), func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, tt.p.peak(mustGPU(t, tt.gpu).PeakFLOPS))
		})
	}
	assert.Zero(t, PrecisionUnset.peak(mustGPU(t, "h100-sxm").PeakFLOPS))
}

// TestWithWeightsAndKVCache: serving Llama-3.1-70B in FP8 halves the
// linear layers but keeps the 16-bit embedding and LM head, and runs GEMMs
// at the FP8 peak; an FP8 KV cache halves the bytes per token.
func TestWithWeightsAndKVCache(t *testing.T) {
	t.Parallel()
	bf16 := mustModel(t, "llama-3.1-70b")
	fp8 := bf16.WithWeights(FP8).WithKVCache(FP8)
	require.NoError(t, fp8.Validate())
	vh := 128256.0 * 8192
	assert.Equal(t, (bf16.TotalParams()-2*vh)*1+2*vh*2, fp8.WeightBytesTotal())
	assert.Equal(t, bf16.KVBytesPerToken()/2, fp8.KVBytesPerToken())
	assert.Equal(t, bf16.TotalParams(), fp8.TotalParams())

	d := Deployment{Model: fp8, GPU: mustGPU(t, "h100-sxm"), TP: 4}
	require.NoError(t, d.Validate())
	assert.Equal(t, 1978.9e12, d.peakFLOPS())
	d.GPU = mustGPU(t, "a100-80gb")
	assert.Equal(t, 312e12, d.peakFLOPS(), "FP8 weights on A100 run as W8A16")

	nvfp4 := bf16.WithWeights(FP4)
	assert.Equal(t, 4.5/8, nvfp4.WeightBytes)
	assert.Equal(t, 2.0, nvfp4.EmbeddingBytes)
	assert.Equal(t, nvfp4.EmbeddingBytes, nvfp4.WithWeights(FP8).EmbeddingBytes, "re-quantizing keeps the original embedding width")

	err := bf16.WithKVCache(MXFP4).Validate()
	requireProblem(t, err, "kv_bytes", 0, "must be a finite number > 0")
}

func TestPrecisionText(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "qwen2.5-7b").WithWeights(MXFP4)
	data, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"gemm":"mxfp4"`)
	var back ModelSpec
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, m, back)
	got, err := LoadModel(writeFile(t, "m.yaml", "name: x\nhidden: 64\nintermediate: 128\nlayers: 2\nheads: 4\nkv_heads: 4\n"+
		"head_dim: 16\nvocab: 100\nweight_bytes: 1\nkv_bytes: 1\nact_bytes: 2\ngemm: fp8\n"))
	require.NoError(t, err)
	assert.Equal(t, FP8, got.GEMM)
	assert.Error(t, json.Unmarshal([]byte(`{"gemm":"fp6"}`), &back))
}

// TestQuantized: a checkpoint of the asked family is served as stored; a
// mixture-of-experts model in FP4 quantizes its routed experts alone, the
// rest in BF16 (NVIDIA's NVFP4 MoE checkpoints); anything else quantizes
// every linear layer.
func TestQuantized(t *testing.T) {
	t.Parallel()
	moe := qwen30B()
	moe.GEMM = BF16
	fp8MoE := moe.WithWeights(FP8)
	dense := mustModel(t, "llama-3.1-8b")
	oss := mustModel(t, "gpt-oss-120b")
	tests := []struct {
		name             string
		m                ModelSpec
		p                Precision
		weight, expert   float64
		gemm, expertGEMM Precision
	}{
		{"bf16 MoE in nvfp4: experts alone", moe, FP4, 2, FP4.Bytes(), BF16, FP4},
		{"fp8 MoE in nvfp4: attention back to bf16", fp8MoE, FP4, 2, FP4.Bytes(), BF16, FP4},
		{"bf16 MoE in fp8: every layer", moe, FP8, 1, 0, FP8, PrecisionUnset},
		{"fp8 MoE in fp8: as stored", fp8MoE, FP8, 1, 0, FP8, PrecisionUnset},
		{"dense in nvfp4: every layer", dense, FP4, FP4.Bytes(), 0, FP4, PrecisionUnset},
		{"gpt-oss in mxfp4: as stored", oss, MXFP4, 2, MXFP4.Bytes(), BF16, MXFP4},
		{"gpt-oss in nvfp4: the same family, as stored", oss, FP4, 2, MXFP4.Bytes(), BF16, MXFP4},
		{"bf16 in fp16: the same family, as stored", dense, FP16, 2, 0, dense.GEMM, PrecisionUnset},
	}
	for _, tt := range tests {
		got := tt.m.Quantized(tt.p)
		assert.Equal(t, []any{tt.weight, tt.expert, tt.gemm, tt.expertGEMM},
			[]any{got.WeightBytes, got.ExpertWeightBytes, got.GEMM, got.ExpertGEMM}, tt.name)
		assert.NoError(t, got.Validate(), tt.name)
	}
}
