package main

import (
	"strings"
	"testing"
)

// The file datasets run from the command line with vLLM's flags; text
// prompts say their token counts are approximated. (vllmbench's
// TestScenarioLengths tests the pathless datasets.)
func TestBenchDatasets(t *testing.T) {
	t.Parallel()
	const d = "testdata/vllmdata/"
	tests := []struct {
		args []string
		want []string
	}{
		{[]string{"--dataset-name", "burstgpt", "--dataset-path", d + "BurstGPT_without_fails_2.csv", "--num-prompts", "30"}, []string{"Successful requests:                     30 "}},
		{[]string{"--dataset-name", "sharegpt", "--dataset-path", d + "ShareGPT_V3_unfiltered_cleaned_split.json", "--num-prompts", "50", "--no-oversample"},
			[]string{"Successful requests:                     40 ", "Prompt token counts:                     approximated as ceil(characters/4) + 1"}},
		{[]string{"--dataset-name", "custom", "--dataset-path", d + "data.jsonl", "--num-prompts", "-1", "--custom-output-len", "-1"}, []string{"Successful requests:                     20 "}},
		{[]string{"--dataset-name", "custom", "--dataset-path", d + "data.jsonl", "--num-prompts", "10", "--output-len", "7"}, []string{"Total generated tokens:                  70 "}},
		{[]string{"--dataset-name=timed_trace", "--dataset-path", d + "conversation_trace.jsonl", "--num-prompts", "20", "--timed-trace-chunk-hash-size", "512", "--timed-trace-sec-multiplier", "0.001"},
			[]string{"Self timing is set, using the timestamps from the trace file.\n", "Successful requests:                     20 "}},
		{[]string{"--dataset-name", "timed_trace", "--dataset-path", d + "conversation_trace.jsonl", "--num-prompts", "10", "--no-self-timed", "--request-rate", "5"},
			[]string{"Traffic request rate: 5.0\n", "Successful requests:                     10 "}},
	}
	for _, tt := range tests {
		r := mustRun(t, append([]string{"bench"}, tt.args...)...)
		for _, w := range tt.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%v: output lacks %q:\n%s", tt.args, w, r.stdout)
			}
		}
	}
	r := runCLI("bench", "--dataset-name", "custom", "--dataset-path", d+"data.jsonl", "--custom-output-len", "-1", "--dataset-path", "testdata/vllmdata/BurstGPT_without_fails_2.csv")
	if r.code != 2 || !strings.Contains(r.stderr, ".jsonl") {
		t.Errorf("custom from a CSV: %d %q", r.code, r.stderr)
	}
}

// Warm-ups run before the measured run, as vLLM's: they print vLLM's two
// lines and change no statistic.
func TestBenchWarmups(t *testing.T) {
	t.Parallel()
	a := mustRun(t, "bench", "--num-prompts", "50", "--request-rate", "20", "--num-warmups", "10")
	b := mustRun(t, "bench", "--num-prompts", "50", "--request-rate", "20")
	if !strings.Contains(a.stdout, "Warming up with 10 requests...\nWarmup run completed.\nStarting main benchmark run...\n") {
		t.Errorf("no warm-up lines:\n%s", a.stdout)
	}
	if i, j := strings.Index(a.stdout, "==="), strings.Index(b.stdout, "==="); a.stdout[i:] != b.stdout[j:] {
		t.Errorf("warm-ups changed the measured run:\n%s\n%s", a.stdout[i:], b.stdout[j:])
	}
}
