package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExtremeInputs drives issue 30's rows of degenerate numbers and
// unbounded counts through the CLI: each exits 2 naming the field and the
// limit, never an internal error or a run of zeros.
func TestExtremeInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(trace, []byte(`{"timestamp": 0, "input_length": 10, "output_length": 5}
{"timestamp": 1e300, "input_length": 10, "output_length": 5}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   []string
		stderr []string
	}{
		{"rate 5e-324", []string{"bench", "--request-rate", "5e-324", "--num-prompts", "20"}, []string{"rate: 5e-324", "below 1e-06"}},
		{"rate 1e-300", []string{"bench", "--request-rate", "1e-300", "--num-prompts", "20"}, []string{"rate: 1e-300", "below 1e-06"}},
		{"rate 1e-13", []string{"bench", "--request-rate", "1e-13", "--num-prompts", "20"}, []string{"below 1e-06"}},
		{"ramp start 1e-300", []string{"bench", "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "1", "--num-prompts", "20"}, nil},
		{"capacity start 1e-300", []string{"capacity", "--goodput", "ttft:500", "--num-prompts", "20", "--start", "1e-300"}, []string{"start rate 1e-300", "1e-06"}},
		{"capacity workers 1e9", []string{"capacity", "--goodput", "ttft:500", "--num-prompts", "20", "--workers", "1000000000"}, []string{"workers 1000000000", "4096"}},
		{"tp workers 1e9", []string{"tp", "--goodput", "ttft:500", "--num-prompts", "20", "--workers", "1000000000"}, []string{"workers 1000000000", "4096"}},
		{"timed_trace timestamps 1e300", []string{"bench", "--dataset-name", "timed_trace", "--dataset-path", trace, "--num-prompts", "2"}, []string{"past 4.294967296e+09 s", "resolution"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(tc.args...)
			if tc.stderr == nil { // a run that must not crash
				if strings.Contains(r.stderr, "internal error") {
					t.Errorf("%v: %s", tc.args, r.stderr)
				}
				return
			}
			if r.code != 2 {
				t.Fatalf("%v: exit %d, want 2; stderr: %s", tc.args, r.code, r.stderr)
			}
			for _, s := range tc.stderr {
				if !strings.Contains(r.stderr, s) {
					t.Errorf("%v: stderr %q lacks %q", tc.args, r.stderr, s)
				}
			}
		})
	}
}
