package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanYAMLFieldErrors: a bad list in a scenario's plan: block is named
// by its YAML key (plan.data_parallel), never by the flag that would set
// it (--dp-degrees); the block's bounds are scenario's (plan's
// TestPlanBlockBounds).
func TestPlanYAMLFieldErrors(t *testing.T) {
	t.Parallel()
	const head = "workload: {arrival: {rate: 20}, lengths: {kind: random, input: 256, output: 64}}\n" +
		"server: {kind: vllm, model: gpt-oss-120b, gpu: h100-sxm}\nslo: {ttft_ms: 2000, tpot_ms: 50}\nrequests: 100\nplan:\n  gpus: [h100-sxm]\n"
	for _, tt := range []struct{ name, plan, want string }{
		{"dp times replicas", "  data_parallel: [1, 512]\n", "plan.data_parallel[1]: 512 times max_replicas 64"},
		{"tp repeated", "  tp: [2, 2]\n", "plan.tp[1]: 2 repeats"},
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
