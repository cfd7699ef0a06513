package main

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
)

// TestCalibrateAudit: --audit fits nothing and writes no profile; it
// prints the per-source counts and every flagged run with its cause, for
// aiconfigurator's rows and the published runs alike.
func TestCalibrateAudit(t *testing.T) {
	t.Parallel()
	configs := shareddata.Path(t, "model_configs")
	r := mustRun(t, "calibrate", "--audit", "--csv", shareddata.Path(t, "aiconfigurator_vllm_silicon.csv"), "--model", "Qwen/Qwen3-32B",
		"--gpu", "h100-sxm", "--model-configs", configs, "-o", "/nonexistent/dir/p.yaml")
	for _, want := range []string{"audit: 93 runs", "| 93 | 2 | 2 | 0 |", "## flagged runs", "fp8 tp2 4000x1000 c48", "prefix-cache hits"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("audit output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = mustRun(t, "calibrate", "--audit", "--csv", shareddata.Path(t, "public_serving_runs.csv"), "--model-configs", configs)
	for _, want := range []string{"audit: 34 runs", "| 34 | 0 | 0 | 0 |", "no run needs more than its GPU can do"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("audit output lacks %q:\n%s", want, r.stdout)
		}
	}
}
