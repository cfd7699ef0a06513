package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bench counts the prompts of a text dataset with the tokenizer.json given
// by --tokenizer (a file or its directory) or found in the --model
// directory, and says so; a tokenizer name keeps the approximation.
//
// testdata/tokenizer/prompts.jsonl holds five prompts. Their counts, worked
// out by hand from the tokenizers of dataset/testdata/tokenizer (see
// dataset/bpe_test.go):
//
//	prompt            llama3-like (BOS)   qwen-like   ceil(chars/4)+1
//	"hello world"     3                   2           4
//	"hello  world"    4                   3           4
//	"1234"            4                   4           2
//	"café"            5                   4           2
//	"hello\n\nworld"  8                   7           4
//	total             24                  20          16
func TestBenchTokenizer(t *testing.T) {
	t.Parallel()
	const (
		prompts = "testdata/tokenizer/prompts.jsonl"
		llama   = "../../dataset/testdata/tokenizer/llama3-like.json"
		qwen    = "../../dataset/testdata/tokenizer/qwen-like.json"
	)
	llamaDir := t.TempDir() // a directory holding a tokenizer.json
	copyFile(t, llama, filepath.Join(llamaDir, "tokenizer.json"))
	modelDir := t.TempDir() // a model directory: config.json and tokenizer.json
	copyFile(t, "testdata/models/Qwen3-30B-A3B/config.json", filepath.Join(modelDir, "config.json"))
	copyFile(t, qwen, filepath.Join(modelDir, "tokenizer.json"))
	const approx = "approximated as ceil(characters/4) + 1 (no tokenizer read)"
	tests := []struct {
		name   string
		args   []string
		tokens string // total_input_tokens
		counts string
	}{
		{"tokenizer.json file", []string{"--tokenizer", llama}, "24", "tokenizer.json at " + llama + " (39 tokens in vocabulary)"},
		{"directory", []string{"--tokenizer", llamaDir}, "24", "tokenizer.json at " + filepath.Join(llamaDir, "tokenizer.json") + " (39 tokens in vocabulary)"},
		{"model directory", []string{"--model", modelDir}, "20", "tokenizer.json at " + filepath.Join(modelDir, "tokenizer.json") + " (41 tokens in vocabulary)"},
		{"--tokenizer wins over the model's", []string{"--model", modelDir, "--tokenizer", llama}, "24", "tokenizer.json at " + llama + " (39 tokens in vocabulary)"},
		{"a tokenizer name", []string{"--tokenizer", "meta-llama/Llama-3.1-8B-Instruct"}, "16", approx},
		{"no tokenizer", nil, "16", approx},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--dataset-name", "custom", "--dataset-path", prompts, "--num-prompts", "-1", "--custom-output-len", "-1"}, tt.args...)
			got := decodeJSON(t, benchJSON(t, nil, args...))
			if n := fmt.Sprint(got["total_input_tokens"]); n != tt.tokens {
				t.Errorf("total_input_tokens = %s, want %s", n, tt.tokens)
			}
			if c := got["servesim"].(map[string]any)["prompt_token_counts"]; c != tt.counts {
				t.Errorf("servesim.prompt_token_counts = %q, want %q", c, tt.counts)
			}
			r := mustRun(t, append([]string{"bench"}, args...)...)
			if line := "Prompt token counts:                     " + tt.counts + "\n"; !strings.Contains(r.stdout, line) {
				t.Errorf("output lacks %q:\n%s", line, r.stdout)
			}
		})
	}
}

// A --tokenizer path that is not a readable tokenizer.json, or a model
// directory whose tokenizer.json servesim cannot read, exits 2 naming the
// flag and the path.
func TestBenchTokenizerErrors(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	badModel := t.TempDir()
	copyFile(t, "testdata/models/Qwen3-30B-A3B/config.json", filepath.Join(badModel, "config.json"))
	if err := os.WriteFile(filepath.Join(badModel, "tokenizer.json"), []byte(`{"model": {"type": "Unigram"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--tokenizer", "absent/tokenizer.json"}, []string{"--tokenizer", "absent/tokenizer.json", "no such file"}},
		{[]string{"--tokenizer", "./absent"}, []string{"--tokenizer", "absent", "no such file"}},
		{[]string{"--tokenizer", empty}, []string{"--tokenizer", empty, "no tokenizer.json"}},
		{[]string{"--tokenizer", "testdata/tokenizer/prompts.jsonl"}, []string{"--tokenizer", "testdata/tokenizer/prompts.jsonl", "tokenizer.json"}},
		{[]string{"--model", badModel}, []string{"--model", filepath.Join(badModel, "tokenizer.json"), `model.type "Unigram"`}},
	}
	for _, tt := range tests {
		args := append([]string{"bench", "--dataset-name", "custom", "--dataset-path", "testdata/tokenizer/prompts.jsonl"}, tt.args...)
		r := runCLI(args...)
		if r.code != 2 {
			t.Errorf("%v: exit %d, want 2", tt.args, r.code)
		}
		for _, w := range tt.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%v: stderr %q lacks %q", tt.args, r.stderr, w)
			}
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
