package cost

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustHFConfig(t testing.TB, path string) ModelSpec {
	t.Helper()
	m, err := LoadHFConfig(path)
	require.NoError(t, err)
	return m
}

// hfModel loads shared/data/model_configs/<file>.json, or cost/testdata/<file>
// when file names a folder there.
func hfModel(t testing.TB, file string) ModelSpec {
	t.Helper()
	if _, err := os.Stat(filepath.Join("testdata", file)); err == nil {
		return mustHFConfig(t, filepath.Join("testdata", file))
	}
	return mustHFConfig(t, shareddata.Path(t, filepath.Join("model_configs", file+".json")))
}

// TestHFConfigsPublishedParameterCounts loads every config of
// shared/data/model_configs and cost/testdata and checks the total and
// active parameter counts against the sizes their publishers give, within
// 2%.
//
// Publishers count "active" parameters differently. Qwen, DeepSeek and
// Mistral count the input embedding and the LM head (activeParams); OpenAI
// leaves the input embedding out of gpt-oss's 5.1B and 3.6B (the
// unembedding stays in); MiniMax leaves both out of M2.5's 9.8B. Moonshot
// does not say: Kimi's 32B matches the count without the input embedding
// (31.7B; with it, 32.9B). The column less says how many V×H matrices the
// publisher leaves out.
func TestHFConfigsPublishedParameterCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file          string
		total, active float64 // published
		less          float64 // embedding matrices the published active count leaves out
		source        string
	}{
		{"meta-llama--Meta-Llama-3.1-8B", 8.03e9, 8.03e9, 0, "huggingface.co/meta-llama/Llama-3.1-8B: 8.03B"},
		{"meta-llama--Meta-Llama-3.1-70B", 70.6e9, 70.6e9, 0, "huggingface.co/meta-llama/Llama-3.1-70B: 70.6B"},
		{"Qwen--Qwen3-8B", 8.2e9, 8.2e9, 0, "huggingface.co/Qwen/Qwen3-8B model card: 8.2B"},
		{"Qwen--Qwen3-32B", 32.8e9, 32.8e9, 0, "huggingface.co/Qwen/Qwen3-32B model card: 32.8B"},
		{"Qwen--Qwen3-30B-A3B", 30.5e9, 3.3e9, 0, "huggingface.co/Qwen/Qwen3-30B-A3B model card: 30.5B total, 3.3B activated"},
		{"Qwen--Qwen3-235B-A22B-FP8", 235e9, 22e9, 0, "huggingface.co/Qwen/Qwen3-235B-A22B model card: 235B total, 22B activated"},
		{"openai--gpt-oss-20b", 20.9e9, 3.6e9, 1, "gpt-oss model card (arXiv 2508.10925): 20.9B total, 3.6B active"},
		{"openai--gpt-oss-120b", 116.8e9, 5.1e9, 1, "gpt-oss model card (arXiv 2508.10925): 116.8B total, 5.1B active"},
		{"MiniMaxAI--MiniMax-M2.5", 229.9e9, 9.8e9, 2, "MiniMax M2 series report: 229.9B total, 9.8B activated per token"},
		{"moonshotai--Kimi-K2.5", 1.04e12, 32e9, 1, "Kimi K2 report (arXiv 2507.20534): 1.04T total, 32B activated; K2.5's text model is K2's"},
		{"deepseek-v3", 671e9, 37e9, 0, "huggingface.co/deepseek-ai/DeepSeek-V3: 671B total, 37B activated (MTP module not counted)"},
		{"mixtral-8x7b", 46.7e9, 12.9e9, 0, "mistral.ai/news/mixtral-of-experts: 46.7B total, 12.9B per token"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			m := hfModel(t, tt.file)
			assert.InEpsilon(t, tt.total, m.TotalParams(), 0.02, tt.source)
			assert.InEpsilon(t, tt.active, m.activeParams()-tt.less*m.embeddingParams(), 0.02, tt.source)
		})
	}
}

// TestHFConfigsCoverSharedData: every file of shared/data/model_configs
// loads, and there are the 10 the table above checks; a new file fails here
// until the table has its published size.
func TestHFConfigsCoverSharedData(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(shareddata.Path(t, "model_configs"), "*.json"))
	require.NoError(t, err)
	assert.Len(t, files, 10)
	for _, f := range files {
		_ = mustHFConfig(t, f)
	}
}

// TestHFConfigsKVBytesPerToken checks the KV bytes per token (BF16 cache,
// 2 bytes) against the arithmetic written out.
func TestHFConfigsKVBytesPerToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file             string
		kv, sliding      float64
		window, maxModel int
	}{
		{"meta-llama--Meta-Llama-3.1-8B", 2 * 32 * 8 * 128 * 2, 0, 0, 131072},          // llama3 rope: no scaling
		{"meta-llama--Meta-Llama-3.1-70B", 2 * 80 * 8 * 128 * 2, 0, 0, 131072},         // 327680
		{"Qwen--Qwen3-8B", 2 * 36 * 8 * 128 * 2, 0, 0, 40960},                          // 147456
		{"Qwen--Qwen3-32B", 2 * 64 * 8 * 128 * 2, 0, 0, 40960},                         // 262144
		{"Qwen--Qwen3-30B-A3B", 2 * 48 * 4 * 128 * 2, 0, 0, 40960},                     // 98304
		{"Qwen--Qwen3-235B-A22B-FP8", 2 * 94 * 4 * 128 * 2, 0, 0, 40960},               // 192512: FP8 weights, BF16 cache
		{"MiniMaxAI--MiniMax-M2.5", 2 * 62 * 8 * 128 * 2, 0, 0, 196608},                // 253952
		{"openai--gpt-oss-20b", 2 * 12 * 8 * 64 * 2, 2 * 12 * 8 * 64 * 2, 128, 131072}, // 12 full + 12 sliding layers; yarn 32 × 4096
		{"openai--gpt-oss-120b", 2 * 18 * 8 * 64 * 2, 2 * 18 * 8 * 64 * 2, 128, 131072},
		{"moonshotai--Kimi-K2.5", 61 * (512 + 64) * 2, 0, 0, 262144}, // MLA: latent + rope key, once; yarn 64 × 4096
		{"deepseek-v3", 61 * (512 + 64) * 2, 0, 0, 163840},           // 70272; yarn 40 × 4096
		{"mixtral-8x7b", 2 * 32 * 8 * 128 * 2, 0, 0, 32768},          // sliding_window null
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			m := hfModel(t, tt.file)
			assert.Equal(t, tt.kv, m.KVBytesPerToken())
			assert.Equal(t, tt.sliding, m.slidingKVBytesPerToken())
			assert.Equal(t, tt.window, m.SlidingWindow)
			assert.Equal(t, tt.maxModel, m.MaxContext)
		})
	}
}

// TestHFConfigsStructure pins what the parser reads from the MoE and
// quantized configs.
func TestHFConfigsStructure(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file                                      string
		experts, perToken, expertI, dense, shared int
		weight, expert, embed                     float64
		gemm, expertGEMM                          Precision
	}{
		{"Qwen--Qwen3-30B-A3B", 128, 8, 768, 0, 0, 2, 0, 0, BF16, PrecisionUnset},
		{"Qwen--Qwen3-235B-A22B-FP8", 128, 8, 1536, 0, 0, 1, 0, 2, FP8, PrecisionUnset}, // fp8: all linear layers, lm_head kept
		{"MiniMaxAI--MiniMax-M2.5", 256, 8, 1536, 0, 0, 1, 0, 2, FP8, PrecisionUnset},   // intermediate_size is the expert width
		{"openai--gpt-oss-120b", 128, 4, 2880, 0, 0, 2, 4.25 / 8, 2, BF16, MXFP4},       // self_attn not converted: experts only
		{"moonshotai--Kimi-K2.5", 384, 8, 2048, 1, 2048, 2, 4.5 / 8, 2, BF16, INT4},     // int4, group 32, BF16 scale: 4 + 16/32 bits
		{"deepseek-v3", 256, 8, 2048, 3, 2048, 1, 0, 2, FP8, PrecisionUnset},
		{"mixtral-8x7b", 8, 2, 14336, 0, 0, 2, 0, 0, BF16, PrecisionUnset},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			m := hfModel(t, tt.file)
			got := []any{m.Experts, m.ExpertsPerToken, m.ExpertIntermediate, m.DenseLayers, m.SharedIntermediate,
				m.WeightBytes, m.ExpertWeightBytes, m.EmbeddingBytes, m.GEMM, m.ExpertGEMM}
			want := []any{tt.experts, tt.perToken, tt.expertI, tt.dense, tt.shared, tt.weight, tt.expert, tt.embed, tt.gemm, tt.expertGEMM}
			assert.Equal(t, want, got)
		})
	}
}

// TestHFRoutingSkew: MoE configs take aiconfigurator's power-law exponent
// of their family, 1.01 for MLA (DeepSeek) models and 1.2 for the others;
// dense configs route nothing.
func TestHFRoutingSkew(t *testing.T) {
	t.Parallel()
	for file, want := range map[string]float64{
		"deepseek-v3": 1.01, "moonshotai--Kimi-K2.5": 1.01,
		"Qwen--Qwen3-30B-A3B": 1.2, "MiniMaxAI--MiniMax-M2.5": 1.2, "openai--gpt-oss-120b": 1.2, "mixtral-8x7b": 1.2,
		"Qwen--Qwen3-32B": 0,
	} {
		if got := hfModel(t, file).RoutingSkew; got != want {
			t.Errorf("%s: routing_skew %v, want %v", file, got, want)
		}
	}
	if got := mustModel(t, "gpt-oss-120b").RoutingSkew; got != 1.2 {
		t.Errorf("catalog gpt-oss-120b: routing_skew %v, want 1.2 as its config gives", got)
	}
}

// TestHFMaxContextFollowsVLLM: the default max_model_len as vLLM derives
// it (_get_and_verify_max_len).
func TestHFMaxContextFollowsVLLM(t *testing.T) {
	t.Parallel()
	base := `"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100`
	tests := []struct {
		name, extra string
		want        int
	}{
		{"plain", `"max_position_embeddings": 4096`, 4096},
		{"smallest key", `"max_position_embeddings": 4096, "seq_length": 2048`, 2048},
		{"yarn uses original × factor", `"max_position_embeddings": 32768, "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}`, 131072},
		{"old type key", `"max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic", "factor": 2.0}`, 8192},
		{"linear factor", `"max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 4}`, 16384},
		{"llama3 not scaled", `"max_position_embeddings": 131072, "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "original_max_position_embeddings": 8192}`, 131072},
		{"longrope defaults to original", `"max_position_embeddings": 131072, "original_max_position_embeddings": 4096, "rope_scaling": {"type": "longrope", "long_factor": [1.0], "short_factor": [1.0]}`, 4096},
		{"gemma3 already scaled", `"model_type": "gemma3_text", "max_position_embeddings": 131072, "rope_scaling": {"rope_type": "linear", "factor": 8.0}`, 131072},
		{"model_max_length overrides", `"max_position_embeddings": 4096, "model_max_length": 8192`, 8192},
		{"none", ``, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			extra := tt.extra
			if extra != "" {
				extra = ", " + extra
			}
			m, err := ParseHFConfig([]byte("{"+base+extra+"}"), "x")
			require.NoError(t, err)
			assert.Equal(t, tt.want, m.MaxContext)
		})
	}
}

// TestHFDefaultsAndVariants: defaults, nested text_config, implicit Qwen2
// biases, Gemma sliding-window patterns, weight-only quantization.
func TestHFDefaultsAndVariants(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json string
		check      func(t *testing.T, m ModelSpec)
	}{
		{"kv heads and head dim default", `{"model_type": "brand_new", "hidden_size": 512, "intermediate_size": 1024,
			"num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 1000}`, func(t *testing.T, m ModelSpec) {
			assert.Equal(t, []int{8, 64}, []int{m.KVHeads, m.HeadDim})
			assert.False(t, m.TiedEmbeddings)
			assert.Equal(t, BF16, m.GEMM)
		}},
		{"qwen2 has q/k/v biases without saying so", `{"model_type": "qwen2", "hidden_size": 512, "intermediate_size": 1024,
			"num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 2, "vocab_size": 1000,
			"use_sliding_window": false, "sliding_window": 131072}`, func(t *testing.T, m ModelSpec) {
			assert.True(t, m.QKVBias)
			assert.Zero(t, m.SlidingLayers, "use_sliding_window false")
		}},
		{"gemma 3 text_config, every sixth layer global, tied", `{"model_type": "gemma3", "text_config": {"model_type": "gemma3_text",
			"hidden_size": 2560, "intermediate_size": 10240, "num_hidden_layers": 34, "num_attention_heads": 8,
			"num_key_value_heads": 4, "head_dim": 256, "vocab_size": 262208, "sliding_window": 1024}, "torch_dtype": "bfloat16"}`,
			func(t *testing.T, m ModelSpec) {
				assert.Equal(t, []int{34 - 5, 1024, 256}, []int{m.SlidingLayers, m.SlidingWindow, m.HeadDim})
				assert.True(t, m.TiedEmbeddings)
				assert.Equal(t, float64(2*5*4*256*2), m.KVBytesPerToken(), "5 global layers keep every token")
			}},
		{"gemma 2 alternates", `{"model_type": "gemma2", "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
			"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "vocab_size": 256000, "sliding_window": 4096}`,
			func(t *testing.T, m ModelSpec) { assert.Equal(t, 13, m.SlidingLayers) }},
		{"every layer slides: all count as full", `{"model_type": "mistral", "hidden_size": 4096, "intermediate_size": 14336,
			"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 32000, "sliding_window": 4096}`,
			func(t *testing.T, m ModelSpec) {
				assert.Equal(t, 32, m.SlidingLayers)
				assert.Equal(t, float64(2*32*8*128*2), m.KVBytesPerToken())
				assert.Zero(t, m.slidingKVBytesPerToken())
			}},
		{"awq int4 group 128 with zero points", `{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
			"num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 1000, "torch_dtype": "float16",
			"quantization_config": {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true}}`,
			func(t *testing.T, m ModelSpec) {
				assert.Equal(t, (4+(16.0+4)/128)/8, m.WeightBytes) // 4.15625 bits
				assert.Equal(t, INT4.Bytes(), m.WeightBytes)
				assert.Equal(t, []any{2.0, INT4}, []any{m.EmbeddingBytes, m.GEMM})
			}},
		{"gptq symmetric has no zero points", `{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
			"num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 1000,
			"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128, "sym": true}}`,
			func(t *testing.T, m ModelSpec) { assert.Equal(t, (4+16.0/128)/8, m.WeightBytes) }},
		{"compressed-tensors nvfp4 with fp8 kv cache", `{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024,
			"num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 1000, "quantization_config": {"quant_method": "compressed-tensors",
			"config_groups": {"group_0": {"weights": {"num_bits": 4, "type": "float", "group_size": 16, "strategy": "tensor_group"},
			"input_activations": {"num_bits": 4, "type": "float"}}}, "kv_cache_scheme": {"num_bits": 8, "type": "float"}}}`,
			func(t *testing.T, m ModelSpec) {
				assert.Equal(t, []any{4.5 / 8, FP4, 1.0}, []any{m.WeightBytes, m.GEMM, m.KVBytes})
			}},
		{"modelopt nvfp4", `{"model_type": "llama", "hidden_size": 512, "intermediate_size": 1024, "num_hidden_layers": 2,
			"num_attention_heads": 8, "vocab_size": 1000, "quantization_config": {"quant_method": "modelopt", "quant_algo": "NVFP4"}}`,
			func(t *testing.T, m ModelSpec) {
				assert.Equal(t, []any{FP4.Bytes(), FP4}, []any{m.WeightBytes, m.GEMM})
			}},
		{"qwen moe mlp_only_layers and decoder_sparse_step", `{"model_type": "qwen2_moe", "hidden_size": 512, "intermediate_size": 1024,
			"num_hidden_layers": 8, "num_attention_heads": 8, "vocab_size": 1000, "num_experts": 16, "num_experts_per_tok": 2,
			"moe_intermediate_size": 128, "shared_expert_intermediate_size": 512, "decoder_sparse_step": 2, "mlp_only_layers": [1]}`,
			func(t *testing.T, m ModelSpec) {
				// MoE layers: (i+1) % 2 == 0 → 1, 3, 5, 7, less layer 1 → 3
				assert.Equal(t, []int{5, 3, 512}, []int{m.DenseLayers, m.moeLayers(), m.SharedIntermediate})
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := ParseHFConfig([]byte(tt.json), "x")
			require.NoError(t, err)
			tt.check(t, m)
		})
	}
}

// TestHFConfigErrorsNameFieldAndFile: a missing or mistyped field, or an
// unknown quantization, fails with the field (and, through LoadHFConfig,
// the file) in the message.
func TestHFConfigErrorsNameFieldAndFile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, json, msg string
	}{
		{"missing hidden_size", `{"num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 8}`,
			"field hidden_size is missing"},
		{"missing intermediate_size", `{"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10}`,
			"field intermediate_size is missing"},
		{"string layers", `{"hidden_size": 8, "num_hidden_layers": "two", "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 8}`,
			`field num_hidden_layers two must be a number`},
		{"fractional heads", `{"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4.5, "vocab_size": 10, "intermediate_size": 8}`,
			"field num_attention_heads 4.5 must be a whole number"},
		{"experts without k", `{"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 8, "num_local_experts": 4}`,
			"field num_experts_per_tok is missing"},
		{"unknown quantization", `{"hidden_size": 8, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 10, "intermediate_size": 8,
			"quantization_config": {"quant_method": "bitsandbytes"}}`, `quant_method "bitsandbytes" is not modelled`},
		{"not json", `{"hidden_size": `, "hf config: unexpected EOF"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path := writeFile(t, "config.json", tt.json)
			_, err := LoadHFConfig(path)
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
			assert.Contains(t, err.Error(), path)
		})
	}
	_, err := LoadHFConfig(filepath.Join(t.TempDir(), "nope"))
	require.ErrorIs(t, err, os.ErrNotExist)
}

// TestLoadHFConfigNamesModelAfterFolder: a directory or a config.json in
// it names the model after the folder; another file name names it after
// the file.
func TestLoadHFConfigNamesModelAfterFolder(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "mixtral-8x7b", mustHFConfig(t, "testdata/mixtral-8x7b").Name)
	assert.Equal(t, "mixtral-8x7b", mustHFConfig(t, "testdata/mixtral-8x7b/config.json").Name)
	assert.Equal(t, "openai--gpt-oss-20b", hfModel(t, "openai--gpt-oss-20b").Name)
}
