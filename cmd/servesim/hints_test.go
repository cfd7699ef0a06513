package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
)

// Common mistakes get errors that say what to do next.
func TestErrorsSayWhatToDo(t *testing.T) {
	t.Parallel()
	base := []string{"bench", "--num-prompts", "5", "--random-input-len", "64", "--random-output-len", "8"}
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"misspelled flag", []string{"--model", "llama-3.1-8b", "--num-promts", "5"}, []string{"unknown flag --num-promts (did you mean --num-prompts?)"}},
		{"gpu family", []string{"--model", "llama-3.1-8b", "--gpu", "H100"}, []string{`unknown gpu "H100": did you mean h100-pcie or h100-sxm?`}},
		{"fp8 dtype", []string{"--model", "llama-3.1-8b", "--dtype", "fp8"}, []string{`"fp8" is not a dtype`, "FP8 weights: --quantization fp8"}},
		{"does not fit", []string{"--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "h100-sxm"}, []string{"does not fit", "it fits at --tensor-parallel-size >= 4 "}},
		{"fits nowhere", []string{"--model", "deepseek-ai/DeepSeek-V3", "--gpu", "l4"}, []string{"it fits at no --tensor-parallel-size up to 64 on l4"}},
		{"unknown id", []string{"--model", "Qwen/Qwen3-8BB"}, []string{"(nearest: Qwen/Qwen3-8B, ", "--model DIR"}},
	}
	for _, tt := range tests {
		r := runCLI(append(base, tt.args...)...)
		for _, w := range tt.want {
			if r.code != 2 || !strings.Contains(r.stderr, w) {
				t.Errorf("%s: exit %d, %q; want %q", tt.name, r.code, r.stderr, w)
			}
		}
	}
	// accepted spellings
	for _, gpu := range []string{"H100-SXM", "NVIDIA H200", "rtx 4090"} {
		if r := runCLI(append(base, "--model", "llama-3.2-1b", "--gpu", gpu)...); r.code != 0 {
			t.Errorf("--gpu %q: exit %d, %s", gpu, r.code, r.stderr)
		}
	}
}

// --quantization compressed-tensors takes the bits from a checkpoint whose
// quantization_config sits under text_config (Kimi-K2.5's layout), as
// vLLM does.
func TestCompressedTensorsUnderTextConfig(t *testing.T) {
	t.Parallel()
	root, ok := shareddata.Find()
	if !ok {
		t.Skip("no shared data")
	}
	data, err := os.ReadFile(filepath.Join(root, "model_configs", "moonshotai--Kimi-K2.5.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "Kimi-K2.5")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI("bench", "--model", dir, "--quantization", "compressed-tensors", "--gpu", "h200", "-tp", "8",
		"--max-model-len", "32768", "--num-prompts", "5", "--random-input-len", "64", "--random-output-len", "8")
	if r.code != 0 || !strings.Contains(r.stdout, "Successful requests:                     5 ") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI("bench", "--model", "llama-3.1-8b", "--quantization", "compressed-tensors", "--num-prompts", "5")
	if r.code != 2 || !strings.Contains(r.stderr, "the bits come from the checkpoint") {
		t.Errorf("an unquantized model: exit %d, %q", r.code, r.stderr)
	}
}

// --model as a served name with --tokenizer naming the checkpoint, as
// vLLM's client takes them: the checkpoint is simulated, the result
// records both as vLLM does.
func TestServedNameWithTokenizer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runCLI("bench", "--model", "Qwen3", "--tokenizer", "Qwen/Qwen3-8B", "--num-prompts", "5", "--random-input-len", "64",
		"--random-output-len", "8", "--save-result", "--result-dir", dir, "--result-filename", "r.json")
	if r.code != 0 || !strings.Contains(r.stdout, "vLLM-v1 engine: Qwen/Qwen3-8B on") || !strings.Contains(r.stderr, "--model Qwen3 is not a checkpoint servesim knows") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"model_id":"Qwen3"`) || !strings.Contains(string(data), `"tokenizer_id":"Qwen/Qwen3-8B"`) {
		t.Errorf("result ids: %.300s", data)
	}
	// a model that loads is kept whatever --tokenizer says
	if r := runCLI("bench", "--model", "llama-3.2-1b", "--tokenizer", "Qwen/Qwen3-8B", "--num-prompts", "5"); r.code != 0 || !strings.Contains(r.stdout, "engine: llama-3.2-1b on") {
		t.Errorf("a known model with --tokenizer: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
