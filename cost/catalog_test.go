package cost

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCatalogNames(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []string{"gpt-oss-120b", "gpt-oss-20b", "llama-2-7b", "llama-3-8b", "llama-3.1-405b", "llama-3.1-70b", "llama-3.1-8b", "llama-3.2-1b", "llama-3.2-3b",
		"mistral-7b", "qwen2.5-72b", "qwen2.5-7b", "qwen3-32b", "qwen3-8b"}, ModelNames())
	assert.Equal(t, []string{"a100-40gb", "a100-80gb", "a10g", "b200", "b300", "gb200", "h100-pcie", "h100-sxm",
		"h20", "h200", "l4", "l40s", "mi300x", "mi325x", "rtx4090", "rtx5090", "rtxpro6000"}, GPUNames())
}

func TestCatalogEntriesValidate(t *testing.T) {
	t.Parallel()
	for _, name := range ModelNames() {
		t.Run(name, func(t *testing.T) {
			m := mustModel(t, name)
			require.NoError(t, m.Validate())
			assert.Equal(t, name, m.Name)
		})
	}
	for _, name := range GPUNames() {
		t.Run(name, func(t *testing.T) {
			g := mustGPU(t, name)
			require.NoError(t, g.Validate())
			assert.Equal(t, name, g.Name)
			assert.Positive(t, g.PeakFLOPS.BF16)
			assert.Positive(t, g.MemoryBytes)
		})
	}
}

// TestCatalogAllReduceOnlyWhereSourced: the GPUs whose all-reduce has a
// measurement or a documented estimate carry NCCL α–β parameters; the
// others carry none, and a TP > 1 deployment on them asks for
// Deployment.Comm instead of inventing a number. vLLM's own all-reduce is
// described exactly for the systems it was measured on: the NVLink ones,
// and two RTX PRO 6000s over PCIe peer-to-peer; the other PCIe cards run
// NCCL.
func TestCatalogAllReduceOnlyWhereSourced(t *testing.T) {
	t.Parallel()
	with := []string{"a100-40gb", "a100-80gb", "b200", "b300", "gb200", "h100-sxm", "h200", "l40s", "mi300x", "mi325x", "rtx4090", "rtxpro6000"}
	withVLLM := []string{"a100-40gb", "a100-80gb", "b200", "b300", "gb200", "h100-sxm", "h200", "rtxpro6000"}
	for _, name := range GPUNames() {
		t.Run(name, func(t *testing.T) {
			g := mustGPU(t, name)
			assert.Equal(t, slices.Contains(with, name), len(g.AllReduce) > 0)
			assert.Equal(t, slices.Contains(withVLLM, name), len(g.VLLMAllReduce) > 0)
		})
	}
	d := Deployment{Model: mustModel(t, "llama-3.1-8b"), GPU: mustGPU(t, "h100-pcie"), TP: 2}
	err := d.Validate()
	fe := requireProblem(t, err, "gpu.all_reduce", nil, `of gpu "h100-pcie" is empty, so tp 2 has no all-reduce to time`)
	assert.Equal(t, "set gpu.all_reduce, or Deployment.Comm", fe.Fix)
}

func TestCatalogUnknownNameListsKnown(t *testing.T) {
	t.Parallel()
	_, err := Model("gpt-5")
	require.ErrorIs(t, err, ErrUnknownName)
	assert.Contains(t, err.Error(), `"gpt-5"`)
	assert.Contains(t, err.Error(), "llama-3.1-405b, llama-3.1-70b, llama-3.1-8b")
	_, err = GPU("tpu")
	require.ErrorIs(t, err, ErrUnknownName)
	assert.Contains(t, err.Error(), "a100-40gb, a100-80gb, a10g, b200")
}

// TestCatalogGPUIsACopy: editing a returned spec must not change the catalog.
func TestCatalogGPUIsACopy(t *testing.T) {
	t.Parallel()
	g := mustGPU(t, "h100-sxm")
	g.AllReduce[0].Alpha = 1
	g.VLLMAllReduce[0].OneShot.Alpha = 1
	assert.NotEqual(t, 1.0, mustGPU(t, "h100-sxm").AllReduce[0].Alpha)
	assert.NotEqual(t, 1.0, mustGPU(t, "h200").AllReduce[0].Alpha)
	assert.NotEqual(t, 1.0, mustGPU(t, "h100-sxm").VLLMAllReduce[0].OneShot.Alpha)
}

func TestPeakFLOPSForBytes(t *testing.T) {
	t.Parallel()
	a100 := mustGPU(t, "a100-80gb").PeakFLOPS
	h100 := mustGPU(t, "h100-sxm").PeakFLOPS
	tests := []struct {
		name  string
		peak  PeakFLOPS
		bytes float64
		want  float64
	}{
		{"h100 bf16", h100, 2, 989.4e12},
		{"h100 fp8", h100, 1, 1978.9e12},
		{"h100 fp32", h100, 4, 67e12},
		{"a100 one-byte falls back to int8", a100, 1, 624e12},
		{"fp16 only", PeakFLOPS{FP16: 5}, 2, 5},
		{"nothing for fp8", PeakFLOPS{BF16: 5}, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.peak.ForBytes(tt.bytes))
		})
	}
}

func TestGPUValidateNamesField(t *testing.T) {
	t.Parallel()
	good := mustGPU(t, "h100-sxm")
	tests := []struct {
		name  string
		edit  func(*GPUSpec)
		field string
		value any
		limit string
	}{
		{"zero memory", func(g *GPUSpec) { g.MemoryBytes = 0 }, "memory_bytes", 0, "must be a finite number > 0"},
		{"negative bandwidth", func(g *GPUSpec) { g.BandwidthBytesPerS = -1 }, "bandwidth_bytes_per_s", -1, "must be a finite number > 0"},
		{"no peak", func(g *GPUSpec) { g.PeakFLOPS = PeakFLOPS{} }, "peak_flops", nil, "at least one data type"},
		{"negative fp8", func(g *GPUSpec) { g.PeakFLOPS.FP8 = -1 }, "peak_flops.fp8", -1, "must be a finite number >= 0"},
		{"negative alpha", func(g *GPUSpec) { g.AllReduce[0].Alpha = -1e-6 }, "all_reduce[0].alpha_s", -1e-6, "must be a finite number >= 0"},
		{"zero bus bandwidth", func(g *GPUSpec) { g.AllReduce[1].BusBandwidth = 0 }, "all_reduce[1].bus_bandwidth_bytes_per_s", 0, "must be a finite number > 0"},
		{"duplicate ranks", func(g *GPUSpec) { g.AllReduce[1].Ranks = 2 }, "all_reduce[1].ranks", 2, "is listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := good
			g.AllReduce = slices.Clone(good.AllReduce)
			tt.edit(&g)
			requireProblem(t, g.Validate(), tt.field, tt.value, tt.limit)
		})
	}
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

func TestLoadModelJSONAndYAML(t *testing.T) {
	t.Parallel()
	want := mustModel(t, "qwen2.5-7b")
	tests := []struct{ file, content string }{
		{"m.json", `{"name":"qwen2.5-7b","hidden":3584,"intermediate":18944,"layers":28,"heads":28,"kv_heads":4,
			"head_dim":128,"vocab":152064,"max_context":131072,"tied_embeddings":false,"qkv_bias":true,"weight_bytes":2,"kv_bytes":2,"act_bytes":2}`},
		{"m.yaml", "name: qwen2.5-7b\nhidden: 3584\nintermediate: 18944\nlayers: 28\nheads: 28\nkv_heads: 4\n" +
			"head_dim: 128\nvocab: 152064\nmax_context: 131072\nqkv_bias: true\nweight_bytes: 2\nkv_bytes: 2\nact_bytes: 2\n"},
		{"m.YML", "{name: qwen2.5-7b, hidden: 3584, intermediate: 18944, layers: 28, heads: 28, kv_heads: 4, " +
			"head_dim: 128, vocab: 152064, max_context: 131072, qkv_bias: true, weight_bytes: 2, kv_bytes: 2, act_bytes: 2}"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := LoadModel(writeFile(t, tt.file, tt.content))
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

func TestLoadGPUYAML(t *testing.T) {
	t.Parallel()
	path := writeFile(t, "g.yaml", `name: my-gpu
memory_bytes: 34359738368
bandwidth_bytes_per_s: 1.0e12
peak_flops: {bf16: 2.0e14, fp8: 4.0e14}
interconnect: PCIe
all_reduce:
  - {ranks: 0, alpha_s: 2.0e-5, bus_bandwidth_bytes_per_s: 5.0e10}
`)
	g, err := LoadGPU(path)
	require.NoError(t, err)
	assert.Equal(t, GPUSpec{Name: "my-gpu", MemoryBytes: 32 * GiB, BandwidthBytesPerS: 1e12,
		PeakFLOPS: PeakFLOPS{BF16: 2e14, FP8: 4e14}, Interconnect: "PCIe",
		AllReduce: AlphaBetaTable{{Alpha: 2e-5, BusBandwidth: 5e10}}}, g)
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, content, msg string
	}{
		{"unknown json key", "m.json", `{"hidden": 1, "hiden": 2}`, "hiden"},
		{"unknown yaml key", "m.yaml", "hidden: 1\nlayerz: 2\n", "layerz"},
		{"bad extension", "m.toml", "hidden = 1", `extension ".toml"`},
		{"invalid values", "m.json", `{"name":"x","hidden":0}`, "m.json: hidden: 0 must be >= 1"},
		{"empty yaml", "m.yaml", "", "empty document"},
		{"syntax", "m.json", `{"hidden":`, "m.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadModel(writeFile(t, tt.file, tt.content))
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	t.Parallel()
	_, err := LoadGPU(filepath.Join(t.TempDir(), "nope.json"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// The catalog entries built from the Hugging Face configs in
// ../shared/data/model_configs equal what ParseHFConfig reads from them.
func TestCatalogMatchesSharedConfigs(t *testing.T) {
	t.Parallel()
	dir := shareddata.Path(t, "model_configs")
	for file, name := range map[string]string{"Qwen--Qwen3-8B.json": "qwen3-8b", "Qwen--Qwen3-32B.json": "qwen3-32b",
		"openai--gpt-oss-20b.json": "gpt-oss-20b", "openai--gpt-oss-120b.json": "gpt-oss-120b"} {
		m, err := LoadHFConfig(filepath.Join(dir, file))
		require.NoError(t, err)
		m.Name = name
		want := mustModel(t, name)
		if want.GEMM == PrecisionUnset {
			m.GEMM, m.EmbeddingBytes = PrecisionUnset, 0 // catalog BF16 entries leave them implicit
		}
		assert.Equal(t, want, m, file)
	}
}
