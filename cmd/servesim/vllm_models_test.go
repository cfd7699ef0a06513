package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
)

// hfIDs are the Hugging Face ids vLLM users serve each catalog model by.
var hfIDs = map[string]string{
	"gpt-oss-120b":   "openai/gpt-oss-120b",
	"gpt-oss-20b":    "openai/gpt-oss-20b",
	"llama-2-7b":     "meta-llama/Llama-2-7b-chat-hf",
	"llama-3-8b":     "meta-llama/Meta-Llama-3-8B-Instruct",
	"llama-3.1-405b": "meta-llama/Llama-3.1-405B-Instruct-FP8",
	"llama-3.1-70b":  "meta-llama/Llama-3.1-70B-Instruct",
	"llama-3.1-8b":   "meta-llama/Llama-3.1-8B-Instruct",
	"llama-3.2-1b":   "meta-llama/Llama-3.2-1B-Instruct",
	"llama-3.2-3b":   "meta-llama/Llama-3.2-3B-Instruct",
	"mistral-7b":     "mistralai/Mistral-7B-Instruct-v0.3",
	"qwen2.5-72b":    "Qwen/Qwen2.5-72B-Instruct",
	"qwen2.5-7b":     "Qwen/Qwen2.5-7B-Instruct",
	"qwen3-32b":      "Qwen/Qwen3-32B",
	"qwen3-8b":       "Qwen/Qwen3-8B",
}

// deployments place the catalog models that do not fit one H100.
var deployments = map[string][]string{
	"llama-3.1-405b": {"--gpu", "h200", "-tp", "8", "--max-model-len", "32k"},
	"llama-3.1-70b":  {"-tp", "4"},
	"qwen2.5-72b":    {"-tp", "4"},
	"gpt-oss-120b":   {"--gpu", "h200"},
}

// `servesim bench --model <HF id>` runs for every catalog model, and the
// result names the catalog model it simulated.
func TestBenchHFModelIDs(t *testing.T) {
	t.Parallel()
	for _, name := range cost.ModelNames() {
		id, ok := hfIDs[name]
		if !ok {
			t.Errorf("catalog model %s has no Hugging Face id in hfIDs", name)
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--model", id, "--num-prompts", "20", "--random-input-len", "256", "--random-output-len", "16"}, deployments[name]...)
			m := decodeJSON(t, benchJSON(t, nil, args...))
			if m["model_id"] != id {
				t.Errorf("model_id %v, want %s as typed", m["model_id"], id)
			}
			if m["completed"] != json.Number("20") {
				t.Errorf("completed %v, want 20", m["completed"])
			}
		})
	}
}

// --model takes a Hugging Face model directory of a model the catalog
// lacks (Qwen3-30B-A3B, a mixture of experts), as vllm serve does.
func TestBenchModelDirectory(t *testing.T) {
	t.Parallel()
	for _, model := range []string{"./testdata/models/Qwen3-30B-A3B", "testdata/models/Qwen3-30B-A3B/config.json"} {
		r := mustRun(t, "bench", "--model", model, "--num-prompts", "20", "--random-input-len", "256", "--random-output-len", "16")
		if !strings.Contains(r.stdout, "Successful requests:                     20 ") || !strings.Contains(r.stdout, "Simulated server:                        vLLM-v1 engine: "+model) {
			t.Errorf("--model %s:\n%s", model, r.stdout)
		}
	}
	// the three nearest by edit distance of the names: which come first moves as
	// the registry grows (Qwen3-4B-AWQ is 6 edits from qwen3-14b-chatty,
	// Qwen3-14B 7), so the check is that Qwen3-14B is among them
	r := runCLI("bench", "--model", "Qwen/Qwen3-14B-Chatty")
	if r.code != 2 || !strings.Contains(r.stderr, `"Qwen/Qwen3-14B-Chatty" is not in servesim's registry`) ||
		!regexp.MustCompile(`\(nearest: [^)]*Qwen/Qwen3-14B[,)]`).MatchString(r.stderr) || !strings.Contains(r.stderr, "--model DIR") {
		t.Errorf("an unknown id: exit %d, %q; want the nearest registered ids and how to pass a config.json", r.code, r.stderr)
	}
}

// vllm serve's precision flags change weight and KV bytes.
func TestBenchPrecisions(t *testing.T) {
	t.Parallel()
	kv := func(args ...string) float64 {
		m := decodeJSON(t, benchJSON(t, nil, append([]string{"--num-prompts", "5"}, args...)...))
		v, _ := m["servesim"].(map[string]any)["kv_cache_tokens"].(json.Number).Float64()
		return v
	}
	bf16, fp8kv, fp8w := kv(), kv("--kv-cache-dtype", "fp8"), kv("--quantization", "fp8")
	if fp8kv < 1.99*bf16 || fp8kv > 2.01*bf16 {
		t.Errorf("--kv-cache-dtype fp8 holds %v tokens, want twice bf16's %v", fp8kv, bf16)
	}
	if fp8w <= bf16 {
		t.Errorf("fp8 weights leave %v KV tokens, want more than bf16's %v (smaller weights)", fp8w, bf16)
	}
}
