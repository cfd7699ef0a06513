package main

import (
	"slices"
	"strings"
	"testing"
)

// argparse's conventions, as vLLM's FlexibleArgumentParser reads them.
func TestArgparse(t *testing.T) {
	t.Parallel()
	var o benchOptions
	fs, _ := benchFlags("bench", &o)
	tests := []struct{ in, want string }{
		{"--num_prompts 5", "--num-prompts 5"},
		{"--num-prompt 5 --random-input=200", "--num-prompts 5 --random-input-len=200"},
		{"--random_input_len=3 --dataset-name=timed_trace", "--random-input-len=3 --dataset-name=timed_trace"},
		{"--metadata a=1 b=2 --seed 3", "--metadata a=1 --metadata b=2 --seed 3"},
		{"--goodput ttft:1 tpot:2 scenario.yaml", "--goodput ttft:1 --goodput tpot:2 scenario.yaml"},
		{"--goodput ttft=1", "--goodput ttft=1"},
		{"--custom-output-len -1", "--custom-output-len -1"},
		{"-tp 2 -q fp8", "-tp 2 -q fp8"},
		{"--metadata --seed 1", "--metadata= --seed 1"},
		{"-- --num_prompts", "-- --num_prompts"},
	}
	for _, tt := range tests {
		got, err := argparse(fs, strings.Fields(tt.in), multiValueFlags)
		if err != nil || !slices.Equal(got, strings.Fields(tt.want)) {
			t.Errorf("argparse(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := argparse(fs, []string{"--max"}, multiValueFlags); err == nil || !strings.Contains(err.Error(), "ambiguous flag --max could match --max-concurrency, --max-model-len") {
		t.Errorf("ambiguous prefix: %v", err)
	}
}

// Flags with no effect in a simulation get one note on stderr; --quiet
// drops it, --disable-tqdm does not.
func TestNoEffectNote(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "bench", "--num-prompts", "5", "--port", "8000", "--host", "h", "--temperature=0", "--disable-tqdm")
	if r.stderr != "servesim: note: --host, --port, --temperature: no effect in a simulation (see servesim bench -h)\n" {
		t.Errorf("stderr %q", r.stderr)
	}
	if r := mustRun(t, "bench", "--num-prompts", "5", "--port", "8000", "--quiet"); r.stderr != "" {
		t.Errorf("--quiet: stderr %q", r.stderr)
	}
	r = mustRun(t, "bench", "--num-prompts", "5", "--endpoint-type", "openai-chat")
	if !strings.Contains(r.stderr, "--endpoint-type is the old name of --backend") {
		t.Errorf("--endpoint-type: stderr %q", r.stderr)
	}
}
