package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanYAMLFieldErrors: a bad list in a scenario's plan: block is named
// by its YAML key (plan.data_parallel), never by the flag that would set
// it (--dp-degrees), and has the flag's bounds (a TP of 3000 or 2e9
// sequences from a file is refused as it is on the command line).
func TestPlanYAMLFieldErrors(t *testing.T) {
	t.Parallel()
	const head = "workload: {arrival: {rate: 20}, lengths: {kind: random, input: 256, output: 64}}\n" +
		"server: {kind: vllm, model: gpt-oss-120b, gpu: h100-sxm}\nslo: {ttft_ms: 2000, tpot_ms: 50}\nrequests: 100\nplan:\n  gpus: [h100-sxm]\n"
	for _, tt := range []struct{ name, plan, want string }{
		{"dp too large", "  data_parallel: [1, 1000000]\n", "plan.data_parallel[1]: 1000000 is not a whole number in [1, 1024]"},
		{"dp times replicas", "  data_parallel: [1, 512]\n", "plan.data_parallel[1] 512 times max_replicas 64"},
		{"tp too large", "  tp: [1, 3000]\n", "plan.tp[1]: 3000 is not a whole number in [1, 1024]"},
		{"tp repeated", "  tp: [2, 2]\n", "plan.tp[1] 2 repeats"},
		{"max_num_seqs too large", "  max_num_seqs: [2000000000]\n", "plan.max_num_seqs[0]: 2000000000 is not a whole number in [1, 1048576]"},
		{"max_num_batched_tokens too large", "  max_num_batched_tokens: [4000000000]\n", "plan.max_num_batched_tokens[0]: 4000000000 is not a whole number in [1, 1073741824]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "p.yaml")
			if err := os.WriteFile(file, []byte(head+tt.plan), 0o644); err != nil {
				t.Fatal(err)
			}
			r := servesim(t, "plan", file, "--quiet")
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) || strings.Contains(r.stderr, "--") {
				t.Errorf("exit %d, stderr %q; want 2 and %q, naming no flag", r.code, r.stderr, tt.want)
			}
		})
	}
}
