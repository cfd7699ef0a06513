package vllmbench

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// argparse's conventions, as vLLM's FlexibleArgumentParser reads them.
func TestArgparse(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	for _, name := range []string{"num-prompts", "random-input-len", "random-output-len", "dataset-name", "metadata", "seed",
		"goodput", "custom-output-len", "max-concurrency", "max-model-len"} {
		fs.String(name, "", "")
	}
	fs.Int("tp", 1, "")
	fs.String("q", "", "")
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
		got, err := Argparse(fs, strings.Fields(tt.in))
		if err != nil || !slices.Equal(got, strings.Fields(tt.want)) {
			t.Errorf("argparse(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := Argparse(fs, []string{"--max"}); err == nil || !strings.Contains(err.Error(), "ambiguous flag --max could match --max-concurrency, --max-model-len") {
		t.Errorf("ambiguous prefix: %v", err)
	}
}
