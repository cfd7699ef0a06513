package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/shareddata"
)

// TestCalibrateCommand: calibrate fits a profile to CSV rows, prints the
// error of every run before and after, writes a profile that loads and
// that bench accepts; bad inputs exit 2 naming the flag.
func TestCalibrateCommand(t *testing.T) {
	t.Parallel()
	csv := shareddata.Path(t, "aiconfigurator_vllm_silicon.csv")
	configs := shareddata.Path(t, "model_configs")
	lssRun := filepath.Join("..", "..", "calibrate", "testdata", "llmservingsim", "rtx4090-llama-3.1-8b")
	out := filepath.Join(t.TempDir(), "h100.yaml")
	r := mustRun(t, "calibrate", "--csv", csv, "--model", "Qwen/Qwen3-32B", "--gpu", "h100-sxm", "--tensor-parallel-size", "8",
		"--precision", "bf16", "--model-configs", configs, "--max-evaluations", "4", "-o", out, "--quiet")
	for _, want := range []string{"calibrate: 30 runs on h100-sxm", "## before", "## after", "| tpot |", "wrote " + out} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("calibrate output lacks %q:\n%s", want, r.stdout)
		}
	}
	prof, err := cost.LoadProfile(out)
	if err != nil {
		t.Fatalf("the written profile does not load: %v", err)
	}
	if prof.Provenance.FittedOn != "30 runs on h100-sxm" || !strings.Contains(prof.Provenance.Source, "aiconfigurator_vllm_silicon.csv") {
		t.Errorf("provenance %+v", prof.Provenance)
	}
	mustRun(t, "bench", "--num-prompts", "50", "--efficiency-profile", out, "--quiet")

	// A run directory of LLMServingSim's bench tool: its GPU from meta.json.
	r = mustRun(t, "calibrate", lssRun, "--max-evaluations", "2", "-o", filepath.Join(t.TempDir(), "4090.yaml"), "--quiet")
	for _, want := range []string{"calibrate: 1 runs on rtx4090", "tp1 replay of 300 requests"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("calibrate of a run directory lacks %q:\n%s", want, r.stdout)
		}
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate"}, "no runs to fit"},
		{[]string{"calibrate", "--csv", csv, "--model", "nope/none"}, `no row of`},
		{[]string{"calibrate", "--csv", csv, "--model", "meta-llama/Llama-3.1-70B"}, "a profile describes one GPU"}, // H100 and B200 rows
		{[]string{"calibrate", filepath.Join("testdata", "vllm", "result_random.json")}, "give --gpu and --tensor-parallel-size"},
		{[]string{"calibrate", "--csv", filepath.Join(t.TempDir(), "missing.csv")}, "--csv:"},
		{[]string{"calibrate", t.TempDir()}, "not a run directory"},
		{[]string{"calibrate", "--gpu", "h100-sxm", lssRun}, "measured on rtx4090, not --gpu h100-sxm"},
	} {
		r := servesim(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("servesim %v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	if _, err := os.Stat("profile.yaml"); err == nil {
		t.Error("a failed calibrate wrote profile.yaml")
	}
}
