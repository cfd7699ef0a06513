package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/shareddata"
)

// TestCalibrateJoint: --joint writes no profile; it prints the joint fit
// of the runs (calibrate.Simulator.Joint): the counts, every term of
// the runs' GPU and version band, and the in-sample errors before and
// after.
func TestCalibrateJoint(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "calibrate", "--joint", "--csv", shareddata.Path(t, "public_serving_runs.csv"), "--gpu", "a100-80gb",
		"--model-configs", shareddata.Path(t, "model_configs"), "-o", "/nonexistent/dir/p.yaml")
	for _, want := range []string{"joint fit: 10 runs (0 flagged by the audit", "| gemm.max | a100-80gb bf16 | 10 |",
		"| step_overhead.per_seq_s | 0.11-0.12 | 10 |", "at the priors, every run in sample: tpot median |error|", "fitted, every run in sample:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--joint output lacks %q:\n%s", want, r.stdout)
		}
	}
	// The per-row noise: estimated from the runs by default (at least
	// 10%), as given with --joint-noise.
	var noise float64
	if _, err := fmt.Sscanf(r.stdout[strings.Index(r.stdout, "per-row noise ")+len("per-row noise "):], "%g%%", &noise); err != nil || noise < 10 {
		t.Errorf("--joint's estimated noise %v (%v), want a percentage of at least 10:\n%s", noise, err, r.stdout)
	}
	given := mustRun(t, "calibrate", "--joint", "--joint-noise", "0.5", "--csv", shareddata.Path(t, "public_serving_runs.csv"), "--gpu", "a100-80gb",
		"--model-configs", shareddata.Path(t, "model_configs"))
	if !strings.Contains(given.stdout, "per-row noise 50.0%,") {
		t.Errorf("--joint-noise 0.5 output lacks its noise:\n%s", given.stdout)
	}
}
