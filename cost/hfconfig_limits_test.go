package cost

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hfBase is the smallest config.json that loads: a tiny Llama.
const hfBase = `"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 1000, "intermediate_size": 128`

// Issue 30's configs that shrank weights, fell back to bf16 silently or
// were accepted with garbage: each is an error naming the field.
func TestHFConfigImpossible(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, json, want string }{
		{"gptq bits 0", `{` + hfBase + `, "quantization_config": {"quant_method": "gptq", "bits": 0, "group_size": 128}}`, "quantization_config.bits 0 must be from 2 to 8"},
		{"awq bits 64", `{` + hfBase + `, "quantization_config": {"quant_method": "awq", "bits": 64}}`, "quantization_config.bits 64"},
		{"gptq group 0", `{` + hfBase + `, "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 0}}`, "group_size 0"},
		{"quantization as a list", `{` + hfBase + `, "quantization_config": [{"quant_method": "fp8"}]}`, "quantization_config is a list, want an object"},
		{"quantization as a string", `{` + hfBase + `, "quantization_config": "fp8"}`, "quantization_config is a string"},
		{"unknown dtype", `{` + hfBase + `, "torch_dtype": "float128"}`, `torch_dtype "float128"`},
		{"trailing garbage", `{` + hfBase + `} trailing`, "trailing bytes after the JSON object"},
		{"second object", `{` + hfBase + `}{}`, "trailing bytes"},
		{"context 1e30", `{` + hfBase + `, "max_position_embeddings": 1e30}`, "gives a context of 1e+30 tokens: want 0 to 1073741824"},
		{"rope factor 1e300", `{` + hfBase + `, "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "yarn", "factor": 1e300}}`, "gives a context of 4.096e+303 tokens"},
		{"negative context", `{` + hfBase + `, "max_position_embeddings": -5}`, "gives a context of -5 tokens"},
		{"compressed int 0 bits", `{` + hfBase + `, "quantization_config": {"quant_method": "compressed-tensors", "config_groups": {"g": {"weights": {"type": "int", "num_bits": 0}}}}}`, "num_bits 0 must be from 2 to 8"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseHFConfig([]byte(tc.json), "x")
			if err == nil || !errors.Is(err, ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want ErrInvalidSpec naming %q", err, tc.want)
			}
		})
	}
	if _, err := ParseHFConfig([]byte(`{`+hfBase+`, "torch_dtype": "bfloat16", "quantization_config": {"quant_method": "gptq", "bits": 8, "group_size": -1}}`), "x"); err != nil {
		t.Errorf("8-bit per-channel GPTQ: %v", err)
	}
}

// A config.json over maxHFConfigBytes (a huge array) is refused from its
// size, before it is read.
func TestHFConfigSizeLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	body := `{` + hfBase + `, "huge": [` + strings.Repeat("0,", maxHFConfigBytes/2) + `0]}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := LoadHFConfig(dir)
	if err == nil || !strings.Contains(err.Error(), "limit of 4194304 bytes") || !strings.Contains(err.Error(), "config.json") {
		t.Errorf("a %d-byte config: %v, want the limit named with the file", len(body), err)
	}
	if _, err := ParseHFConfig([]byte(body), "x"); err == nil || !strings.Contains(err.Error(), "limit of 4194304 bytes") {
		t.Errorf("ParseHFConfig of %d bytes: %v", len(body), err)
	}
}

// FuzzParseHFConfig: any bytes give a valid model or an ErrInvalidSpec
// error, never a panic.
func FuzzParseHFConfig(f *testing.F) {
	f.Add(`{` + hfBase + `}`)
	f.Add(`{` + hfBase + `, "quantization_config": {"quant_method": "gptq", "bits": 0}}`)
	f.Add(`{` + hfBase + `, "quantization_config": [1, 2]}`)
	f.Add(`{` + hfBase + `, "torch_dtype": "int1"} garbage`)
	f.Add(`{"text_config": {` + hfBase + `, "num_key_value_heads": 0}, "max_position_embeddings": -9223372036854775808}`)
	f.Add(`{` + hfBase + `, "num_local_experts": 4, "num_experts_per_tok": 1, "intermediate_size_mlp": 64, "moe_layers": [0, "x"], "attention_chunk_size": 8, "no_rope_layers": [1, 0]}`)
	f.Fuzz(func(t *testing.T, js string) {
		m, err := ParseHFConfig([]byte(js), "fuzz")
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("error %v does not match ErrInvalidSpec", err)
			}
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("accepted an invalid model: %v", err)
		}
		if !(m.WeightBytes > 0) {
			t.Fatalf("weight bytes %v", m.WeightBytes)
		}
	})
}
