package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// datasetRun runs bench in a new directory with --save-result and returns
// the result file's decoded object.
func datasetRun(t *testing.T, files map[string]string, args ...string) map[string]any {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := servesimIn(t, dir, nil, append(append([]string{"bench"}, args...), "--save-result", "--result-filename", "r.json", "--quiet")...)
	if r.code != 0 {
		t.Fatalf("bench %v: exit %d: %s", args, r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// servesimKey returns a key of the result's "servesim" object.
func servesimKey(t *testing.T, res map[string]any, key string) float64 {
	t.Helper()
	v, ok := res["servesim"].(map[string]any)[key].(float64)
	if !ok {
		t.Fatalf("no servesim.%s in the result", key)
	}
	return v
}

// sonnet's prompts share the instruction and the file's first lines,
// about --sonnet-prefix-len 200 tokens: sent one at a time, every request
// after the first hits the same whole number of 16-token blocks of it,
// between 200 less a block and a line, and 200.
func TestSonnetPrefixCache(t *testing.T) {
	t.Parallel()
	son, err := os.ReadFile("testdata/vllmdata/sonnet.txt")
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	res := datasetRun(t, map[string]string{"sonnet.txt": string(son)}, "--dataset-name", "sonnet", "--dataset-path", "sonnet.txt",
		"--num-prompts", "40", "--max-concurrency", "1")
	hits := servesimKey(t, res, "prefix_cache_hits")
	shared := hits / (n - 1)
	if shared != float64(int(shared)) || int(shared)%16 != 0 || shared <= 200-16-20 || shared > 200 {
		t.Errorf("%v prefix-cache hits over %d requests: %v tokens a request, want a multiple of 16 in (164, 200]", hits, n, shared)
	}
	if in := res["total_input_tokens"].(float64); in > n*550 {
		t.Errorf("%v input tokens, over %d prompts of at most --sonnet-input-len 550", in, n)
	}
}

// A generate_conversations file of constants (worked in dataset's
// TestMultiTurnGenerate): 3 conversations of 2 turns, prompts of 232 then
// 472 tokens. One at a time, the second and third first turns hit the
// common prefix's 3 blocks (48 tokens) and every second turn its first
// turn's 14 full blocks (224): 2·48 + 3·224 = 768 hits of 2112 tokens.
func TestMultiTurnPrefixCache(t *testing.T) {
	t.Parallel()
	gen := `{"filetype": "generate_conversations", "num_conversations": 3, "text_files": ["pg1184.txt"],
  "prompt_input": {"num_turns": {"distribution": "constant", "value": 3}, "common_prefix_num_tokens": {"distribution": "constant", "value": 50},
    "prefix_num_tokens": {"distribution": "constant", "value": 30}, "num_tokens": {"distribution": "constant", "value": 200}},
  "prompt_output": {"num_tokens": {"distribution": "constant", "value": 40}}}`
	res := datasetRun(t, map[string]string{"gen.json": gen}, "--dataset-name", "multi_turn", "--dataset-path", "gen.json", "--max-concurrency", "1")
	if q, h := servesimKey(t, res, "prefix_cache_queries"), servesimKey(t, res, "prefix_cache_hits"); q != 2112 || h != 768 {
		t.Errorf("%v hits of %v prompt tokens, want 768 of 2112", h, q)
	}
	if got := res["completed"].(float64); got != 6 {
		t.Errorf("%v requests completed, want the file's 6 turns", got)
	}
}

// hf: VisionArena's published mean prompt (94.3 tokens) and vLLM's fixed
// 128-token answers, with a note saying only a mean is known; random-mm:
// 300 text tokens and two 224×224 images of 66 tokens each to Qwen3-VL,
// and its shared prefix seen by the cache.
func TestHFAndRandomMM(t *testing.T) {
	t.Parallel()
	res := datasetRun(t, nil, "--dataset-name", "hf", "--dataset-path", "lmarena-ai/VisionArena-Chat", "--num-prompts", "10")
	if res["total_input_tokens"].(float64) != 940 || res["total_output_tokens"].(float64) != 1280 {
		t.Errorf("VisionArena: %v in, %v out; want 940 and 1280", res["total_input_tokens"], res["total_output_tokens"])
	}
	r := servesim(t, "bench", "--dataset-name", "hf", "--dataset-path", "lmarena-ai/VisionArena-Chat", "--num-prompts", "10")
	if !strings.Contains(r.stderr, "only the mean prompt length is published") {
		t.Errorf("no note that only a mean is published: %s", r.stderr)
	}
	res = datasetRun(t, nil, "--model", "Qwen/Qwen3-VL-8B-Instruct", "--dataset-name", "random-mm", "--num-prompts", "10",
		"--random-input-len", "300", "--random-output-len", "40", "--random-mm-base-items-per-request", "2",
		"--random-mm-bucket-config", "{(224, 224, 1): 1.0}")
	if got := res["total_input_tokens"].(float64); got != 10*(300+2*66) {
		t.Errorf("random-mm: %v input tokens, want %d", got, 10*(300+2*66))
	}
	// --random-prefix-len 64 opens every prompt: sent one at a time, the
	// 9 after the first hit its 4 blocks.
	res = datasetRun(t, nil, "--model", "Qwen/Qwen3-VL-8B-Instruct", "--dataset-name", "random-mm", "--num-prompts", "10",
		"--random-prefix-len", "64", "--max-concurrency", "1")
	if h := servesimKey(t, res, "prefix_cache_hits"); h != 9*64 {
		t.Errorf("random-mm --random-prefix-len 64: %v prefix-cache hits, want %d", h, 9*64)
	}
}
