package hfmodels

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/shareddata"
)

// Every entry loads, validates, names its source and has a hub-style id.
func TestEntriesLoad(t *testing.T) {
	t.Parallel()
	es := Entries()
	if len(es) < 60 {
		t.Fatalf("%d entries, want the whole registry", len(es))
	}
	for _, e := range es {
		if strings.Count(e.ID, "/") != 1 || e.Source == "" {
			t.Errorf("%q: want an org/name id and a source (source %q)", e.ID, e.Source)
		}
		m, err := e.Model()
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if m.MaxContext <= 0 || m.TotalParams() <= 0 {
			t.Errorf("%s: context %d, %g parameters", e.ID, m.MaxContext, m.TotalParams())
		}
		if e.Catalog != "" {
			if _, err := cost.Model(e.Catalog); err != nil {
				t.Errorf("%s: catalog %q: %v", e.ID, e.Catalog, err)
			}
		}
	}
}

// publishedParams are the parameter counts the checkpoints' model cards
// publish (Hugging Face), for the configs kept in testdata and in
// ../shared/data/model_configs.
var publishedParams = map[string]float64{
	"Qwen/Qwen3-8B":                 8.2e9,   // model card: "Number of Parameters: 8.2B"
	"Qwen/Qwen3-32B":                32.8e9,  // "32.8B"
	"Qwen/Qwen3-30B-A3B":            30.5e9,  // "30.5B in total and 3.3B activated"
	"Qwen/Qwen3-235B-A22B-FP8":      235e9,   // "235B in total and 22B activated"
	"meta-llama/Meta-Llama-3.1-8B":  8.03e9,  // hub safetensors: 8.03B params
	"meta-llama/Meta-Llama-3.1-70B": 70.6e9,  // hub safetensors: 70.6B params
	"openai/gpt-oss-20b":            21e9,    // "21B parameters with 3.6B active"
	"openai/gpt-oss-120b":           117e9,   // "117B parameters with 5.1B active"
	"MiniMaxAI/MiniMax-M2.5":        230e9,   // "230B total parameters with 10B active"
	"deepseek-ai/DeepSeek-V3":       671e9,   // "671B total parameters with 37B activated" (MTP module not counted)
	"mistralai/Mixtral-8x7B-v0.1":   46.7e9,  // cost/testdata/README.md: 46.7B
	"moonshotai/Kimi-K2.5":          1.03e12, // hub safetensors of the text model, Kimi-K2: 1.03T params ("1T" in the card)
	// the configs of testdata/ and ../cost/testdata/llama4/
	"Qwen/Qwen3-30B-A3B-Instruct-2507":              30.5e9,   // model card: "30.5B in total and 3.3B activated"
	"microsoft/Phi-mini-MoE-instruct":               7.6e9,    // model card: "7.6B total parameters and 2.4B activated"
	"google/gemma-3-27b-it":                         27.016e9, // Gemma 3 technical report (arXiv 2503.19786), Table 1: 1,416M embedding + 25,600M non-embedding (the 417M vision encoder apart)
	"meta-llama/Llama-4-Maverick-17B-128E-Instruct": 400e9,    // model card: "17B (Activated) 400B (Total)", its ~0.9B vision encoder included
}

// The registry against every config.json kept in testdata and in the
// shared model_configs: the entry's architecture is the full config's,
// field for field (trimming loses nothing the cost model reads), its
// context is the config's max_position_embeddings as vLLM derives it, and
// its parameter count is within 1% of the published count.
func TestRegistryMatchesKeptConfigs(t *testing.T) {
	t.Parallel()
	configs := map[string]string{ // id → path
		"deepseek-ai/DeepSeek-V3":     "../cost/testdata/deepseek-v3/config.json",
		"mistralai/Mixtral-8x7B-v0.1": "../cost/testdata/mixtral-8x7b/config.json",
		"Qwen/Qwen3-30B-A3B":          "../cmd/servesim/testdata/models/Qwen3-30B-A3B/config.json",
	}
	for _, pattern := range []string{"testdata/*.json", "../cost/testdata/llama4/*Maverick*.json"} {
		// org--name.json; Llama 4 Scout's published 109B counts a vision
		// encoder its config does not describe (cost's TestHFLlama4 checks
		// it within 2%)
		files, _ := filepath.Glob(pattern)
		for _, f := range files {
			configs[strings.Replace(strings.TrimSuffix(filepath.Base(f), ".json"), "--", "/", 1)] = f
		}
	}
	if root, ok := shareddata.Find(); ok {
		files, _ := filepath.Glob(filepath.Join(root, "model_configs", "*.json"))
		if len(files) < 10 {
			t.Fatalf("%d shared model configs, want 10", len(files))
		}
		for _, f := range files {
			configs[strings.Replace(strings.TrimSuffix(filepath.Base(f), ".json"), "--", "/", 1)] = f
		}
	}
	checked := 0
	for id, path := range configs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want, err := cost.ParseHFConfig(data, id)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Lookup(id)
		if err != nil {
			t.Errorf("%s (%s): %v", id, path, err)
			continue
		}
		got, err := e.Model()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: registry %+v\nconfig   %+v", id, got, want)
		}
		var raw map[string]any
		if err := json.Unmarshal(data, &raw); err != nil {
			t.Fatal(err)
		}
		if tc, ok := raw["text_config"].(map[string]any); ok {
			raw = tc
		}
		if mpe, _ := raw["max_position_embeddings"].(float64); int(mpe) != got.MaxContext && id != "deepseek-ai/DeepSeek-V3" {
			// DeepSeek-V3's yarn rope_scaling: vLLM's length is
			// original_max_position_embeddings × factor = 163840, its
			// max_position_embeddings too
			t.Errorf("%s: context %d, config max_position_embeddings %v", id, got.MaxContext, mpe)
		}
		if id == "deepseek-ai/DeepSeek-V3" && got.MaxContext != 163840 {
			t.Errorf("%s: context %d, want 163840", id, got.MaxContext)
		}
		pub, ok := publishedParams[id]
		if !ok {
			t.Errorf("%s: no published parameter count in the test's table", id)
			continue
		}
		if rel := math.Abs(got.TotalParams()/pub - 1); rel > 0.01 {
			t.Errorf("%s: %.4g parameters, published %.4g (%.2f%% off, want within 1%%)", id, got.TotalParams(), pub, 100*rel)
		}
		checked++
	}
	if checked < 16 {
		t.Errorf("checked %d configs", checked)
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want, quant string }{
		{"Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen2.5-7B-Instruct", ""},
		{"qwen/QWEN2.5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct", ""},
		{"https://huggingface.co/Qwen/Qwen3-8B/", "Qwen/Qwen3-8B", ""},
		{"Qwen/Qwen3-8B@main", "Qwen/Qwen3-8B", ""},
		{"meta-llama/Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-8B", ""},
		{"meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct", ""},
		{"unsloth/Qwen3-14B", "Qwen/Qwen3-14B", ""},
		{"/models/Qwen3-14B", "Qwen/Qwen3-14B", ""},
		{"RedHatAI/Qwen3-14B-FP8-dynamic", "Qwen/Qwen3-14B", "fp8"},
		{"Qwen/Qwen3-14B-AWQ", "Qwen/Qwen3-14B", "awq"},
		{"Qwen/Qwen3-32B-FP8", "Qwen/Qwen3-32B-FP8", ""}, // its own entry
	}
	for _, tt := range tests {
		e, q, err := Resolve(tt.in)
		if err != nil || e.ID != tt.want || q != tt.quant {
			t.Errorf("Resolve(%q) = %q, %q, %v; want %q, %q", tt.in, e.ID, q, err, tt.want, tt.quant)
		}
	}
	_, err := Lookup("Qwen/Qwen3-8BB")
	if !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "nearest: Qwen/Qwen3-8B, ") ||
		!strings.Contains(err.Error(), "--model DIR") {
		t.Errorf("unknown id: %v", err)
	}
	if n := Nearest("Qwen/Qwen3-8BB", 3); len(n) != 3 {
		t.Errorf("Nearest: %v", n)
	}
	// a registered name with a suffix added comes first, though
	// Qwen1.5-14B-Chat is fewer edits from the name
	if n := Nearest("Qwen/Qwen3-14B-Chatty", 3); n[0] != "Qwen/Qwen3-14B" {
		t.Errorf("Nearest(Qwen/Qwen3-14B-Chatty) = %v, want Qwen/Qwen3-14B first", n)
	}
}

func TestCatalogIDs(t *testing.T) {
	t.Parallel()
	for _, name := range cost.ModelNames() {
		id, ok := ForCatalog(name)
		if !ok {
			t.Errorf("catalog model %s has no registry entry", name)
			continue
		}
		if c, ok := CatalogFor(id); !ok || c != name {
			t.Errorf("CatalogFor(%q) = %q, %v; want %s", id, c, ok, name)
		}
	}
	if id, _ := ForCatalog("llama-3.1-70b"); id != "meta-llama/Llama-3.1-70B-Instruct" {
		t.Errorf("llama-3.1-70b serves %q", id)
	}
}

// BenchmarkResolve measures one resolution of a quantized repackaging's
// id, the longest path short of an unknown id, and of an unknown id with
// its nearest ids.
func BenchmarkResolve(b *testing.B) {
	for _, id := range []string{"RedHatAI/Qwen3-14B-FP8-dynamic", "nobody/no-such-model"} {
		b.Run(id, func(b *testing.B) {
			for b.Loop() {
				_, _, _ = Resolve(id)
			}
			b.ReportMetric(float64(len(Entries())), "entries")
		})
	}
}

// The Gated DeltaNet hybrids against their published totals, and one
// model's per-sequence state worked by hand.
func TestLinearAttentionEntries(t *testing.T) {
	t.Parallel()
	published := map[string]float64{
		// docs.sglang.io/cookbook/autoregressive/Qwen/Qwen3.5 (from the
		// model card): "397B total parameters, 17B activated"; the text
		// model without its ~0.4B vision tower and MTP layer
		"Qwen/Qwen3.5-397B-A17B":         397e9,
		"nvidia/Qwen3.5-397B-A17B-NVFP4": 397e9,
		"Qwen/Qwen3.5-122B-A10B":         122e9, // the checkpoint's name, "122B in total"
	}
	for id, pub := range published {
		e, err := Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		m, err := e.Model()
		if err != nil {
			t.Fatal(err)
		}
		if m.Linear.Layers == 0 {
			t.Errorf("%s: no linear-attention layers", id)
		}
		if rel := math.Abs(m.TotalParams()/pub - 1); rel > 0.01 {
			t.Errorf("%s: %.4g parameters, published %.4g (%.2f%% off)", id, m.TotalParams(), pub, 100*rel)
		}
	}
	// Qwen3.5-27B by hand: 64 layers, every 4th full, so 48 linear; conv
	// channels 2·16·128 + 48·128 = 10240, a 3-token window at bf16:
	// 61440 bytes; state 48·128·128 = 786432 elements at float32
	// (mamba_ssm_dtype): 3145728 bytes; 48 · 3207168 = 153944064.
	e, err := Lookup("Qwen/Qwen3.5-27B")
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.Model()
	if err != nil {
		t.Fatal(err)
	}
	if got := m.StateBytesPerSeq(); got != 153944064 {
		t.Errorf("Qwen3.5-27B: %v state bytes a sequence, want 153944064", got)
	}
	// its KV cache: 16 full layers · 2 · 4 KV heads · 256 · 2 bytes
	if got := m.KVBytesPerToken(); got != 65536 {
		t.Errorf("Qwen3.5-27B: %v KV bytes a token, want 65536", got)
	}
}

// entryParams are the parameter counts published for registry entries
// whose config.json is not kept in testdata (the model cards, or the hub's
// safetensors count where the card gives none).
var entryParams = map[string]float64{
	"Qwen/Qwen2.5-3B":                      3.09e9,        // model card: "Number of Parameters: 3.09B"
	"Qwen/Qwen2.5-14B":                     14.7e9,        // "14.7B"
	"Qwen/Qwen3-4B":                        4.0e9,         // "Number of Parameters: 4.0B"
	"microsoft/Phi-3-mini-4k-instruct":     3.8e9,         // "a 3.8B parameters, lightweight, state-of-the-art open model"
	"microsoft/Phi-3-mini-128k-instruct":   3.8e9,         // the same 3.8B
	"microsoft/Phi-3-medium-4k-instruct":   14e9,          // "a 14B parameters, lightweight, state-of-the-art open model"
	"microsoft/Phi-3-medium-128k-instruct": 14e9,          // the same 14B
	"google/gemma-7b-it":                   8.54e9,        // hub safetensors: 8.54B params
	"meta-llama/Llama-2-13b-chat-hf":       13.0e9,        // hub safetensors: 13B params
	"zai-org/GLM-4.5-Air":                  106e9,         // model card: "106 billion total parameters and 12 billion active" (its MTP layer not counted)
	"openbmb/MiniCPM-2B-sft-bf16":          2.7e9,         // model card: 2.4B non-embedding parameters, 2.7B in all
	"stabilityai/stablelm-2-zephyr-1_6b":   1.644417024e9, // Stable LM 2 1.6B's model card, whose architecture the Zephyr fine-tune keeps: "1,644,417,024" parameters
	// the configs Girafboy/pytorchKQI copied (internal/hfmodelsgen)
	"01-ai/Yi-6B":                            6.06e9, // hub safetensors: 6.06B params
	"01-ai/Yi-9B":                            8.83e9, // hub safetensors: 8.83B params
	"01-ai/Yi-34B-Chat":                      34.4e9, // hub safetensors: 34.4B params
	"Qwen/Qwen1.5-1.8B":                      1.84e9, // hub safetensors: 1.84B params
	"Qwen/Qwen1.5-4B":                        3.95e9, // hub safetensors: 3.95B params
	"Qwen/Qwen1.5-7B":                        7.72e9, // hub safetensors: 7.72B params
	"Qwen/Qwen1.5-14B":                       14.2e9, // hub safetensors: 14.2B params
	"Qwen/Qwen1.5-32B":                       32.5e9, // hub safetensors: 32.5B params
	"Qwen/Qwen1.5-72B":                       72.3e9, // hub safetensors: 72.3B params
	"Qwen/Qwen1.5-110B-Chat":                 111e9,  // hub safetensors: 111B params
	"Qwen/Qwen1.5-MoE-A2.7B":                 14.3e9, // model card: "14.3B parameters in total and 2.7B activated"
	"Qwen/CodeQwen1.5-7B":                    7.25e9, // hub safetensors: 7.25B params
	"Qwen/Qwen2-1.5B":                        1.54e9, // hub safetensors: 1.54B params
	"Qwen/Qwen2-57B-A14B":                    57.4e9, // hub safetensors: 57.4B params
	"deepseek-ai/DeepSeek-V2":                236e9,  // model card: "236B total parameters, of which 21B are activated"
	"deepseek-ai/DeepSeek-Coder-V2-Instruct": 236e9,  // model card: "236B" total, "21B" active
	"deepseek-ai/deepseek-moe-16b-base":      16.4e9, // model card: "16.4B parameters"
	"deepseek-ai/deepseek-llm-67b-base":      67e9,   // model card: "67 billion parameters"
	"deepseek-ai/deepseek-coder-6.7b-base":   6.7e9,  // model card: "6.7B parameter model"
	"deepseek-ai/deepseek-coder-33b-base":    33.3e9, // hub safetensors: 33.3B params
	"deepseek-ai/deepseek-math-7b-base":      6.91e9, // hub safetensors: 6.91B params
	// the configs aiconfigurator keeps beside its 095f58a5 ones (internal/hfmodelsgen/hand)
	"meta-llama/Llama-3.3-70B-Instruct": 70.6e9, // hub safetensors: 70.6B params
	"Qwen/Qwen3-Next-80B-A3B-Thinking":  80e9,   // model card: "80B in total and 3B activated"
	"zai-org/GLM-4.7-Flash":             30e9,   // model card: a 30B-A3B MoE model
}

// The entries of entryParams against their published counts, within 1%.
func TestEntriesMatchPublishedParams(t *testing.T) {
	t.Parallel()
	for id, pub := range entryParams {
		e, err := Lookup(id)
		if err != nil {
			t.Errorf("%s: %v", id, err)
			continue
		}
		m, err := e.Model()
		if err != nil {
			t.Fatal(err)
		}
		if rel := math.Abs(m.TotalParams()/pub - 1); rel > 0.01 {
			t.Errorf("%s: %.4g parameters, published %.4g (%.2f%% off, want within 1%%)", id, m.TotalParams(), pub, 100*rel)
		}
	}
}
