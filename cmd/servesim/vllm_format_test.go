package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// vllmBlock returns the "Serving Benchmark Result" block of out, from its
// title to its closing rule.
func vllmBlock(t *testing.T, out string) []string {
	t.Helper()
	const title = "============ Serving Benchmark Result ============\n"
	i := strings.Index(out, title)
	if i < 0 {
		t.Fatalf("no summary block in\n%s", out)
	}
	rest := out[i:]
	j := strings.Index(rest, "\n"+strings.Repeat("=", 50)+"\n")
	if j < 0 {
		t.Fatalf("no closing rule in\n%s", rest)
	}
	return strings.Split(rest[:j+1+50], "\n")
}

var (
	intValueRE   = regexp.MustCompile(`^\d+ *$`)
	floatValueRE = regexp.MustCompile(`^\d+\.\d\d *$`)
)

// TestVLLMSummaryFormat compares servesim's block with vLLM's, line by
// line (testdata/vllm/summary_*.golden, the byte-exact blocks of
// serve.py@009e6d4a for the same flags): the same titles and rules, the
// same labels in the same order, each value an integer or a two-decimal
// float where vLLM's is, left-justified to 10 columns after 41.
func TestVLLMSummaryFormat(t *testing.T) {
	t.Parallel()
	base := []string{"bench", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--dataset-name", "random", "--random-input-len", "1024",
		"--random-output-len", "128", "--num-prompts", "100", "--request-rate", "10"}
	for golden, extra := range map[string][]string{
		"summary_random.golden": nil,
		"summary_full.golden": {"--max-concurrency", "8", "--goodput", "ttft:200", "tpot:7.8", "e2el:1300",
			"--percentile-metrics", "ttft,tpot,itl,e2el,client_queue_time,e2el_including_client_queue", "--metric-percentiles", "50,90,99,99.9"},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "vllm", golden))
		if err != nil {
			t.Fatal(err)
		}
		wantLines := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")
		r := mustRun(t, append(base, extra...)...)
		got := vllmBlock(t, r.stdout)
		if len(got) != len(wantLines) {
			t.Errorf("%s: %d lines, want %d:\n%s", golden, len(got), len(wantLines), strings.Join(got, "\n"))
			continue
		}
		for i, w := range wantLines {
			g := got[i]
			if len(w) <= 41 || strings.Trim(w, "=-") == "" || strings.HasPrefix(w, "=") || strings.HasPrefix(w, "-") {
				if g != w {
					t.Errorf("%s line %d: %q, want %q", golden, i+1, g, w)
				}
				continue
			}
			if len(g) <= 41 || g[:41] != w[:41] {
				t.Errorf("%s line %d: label %q, want %q", golden, i+1, g, w)
				continue
			}
			gv, wv := g[41:], w[41:]
			switch {
			case intValueRE.MatchString(wv) && !intValueRE.MatchString(gv),
				floatValueRE.MatchString(wv) && !floatValueRE.MatchString(gv):
				t.Errorf("%s line %d: value %q, want the form of %q", golden, i+1, gv, wv)
			case len(strings.TrimSpace(gv)) < 10 && len(gv) != 10:
				t.Errorf("%s line %d: value %q is not padded to 10 columns", golden, i+1, gv)
			}
		}
	}
}

// TestVLLMResultFiles compares the result JSON of the golden files'
// commands with vLLM's (testdata/vllm/result_random.json and
// result_detailed.json): the same keys in the same order with the same
// JSON types, servesim's own under the one "servesim" key after them.
func TestVLLMResultFiles(t *testing.T) {
	t.Parallel()
	base := []string{"--model", "meta-llama/Llama-3.1-8B-Instruct", "--dataset-name", "random", "--random-input-len", "1024",
		"--random-output-len", "128", "--request-rate", "10"}
	for golden, extra := range map[string][]string{
		"result_random.json":   {"--num-prompts", "100"},
		"result_detailed.json": {"--num-prompts", "3", "--save-detailed"},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", "vllm", golden))
		if err != nil {
			t.Fatal(err)
		}
		got := benchJSON(t, nil, append(base, extra...)...)
		checkVLLMKeys(t, golden, got, orderedKinds(t, want))
	}
}
