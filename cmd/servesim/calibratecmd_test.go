package main

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/shareddata"
)

// TestCalibrateCommand: calibrate (calibrate.Run, tested there) fits a
// profile to CSV rows, prints the error of every run before and after,
// writes a profile that loads and that bench accepts; bad inputs exit 2
// naming the flag.
func TestCalibrateCommand(t *testing.T) {
	t.Parallel()
	csv := shareddata.Path(t, "aiconfigurator_vllm_silicon.csv")
	configs := shareddata.Path(t, "model_configs")
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

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate"}, "no runs to fit"},
		{[]string{"calibrate", "--csv", csv, "--max-evaluations", "-1"}, "--max-evaluations"},
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

// TestCalibrateResultDeployment: a result file saved by bench with
// --save-detailed on an engine of 8 sequences and an FP8 KV cache, and
// calibrated from the same engine flags under the profile bench ran, is
// re-simulated exactly (each request at its start time with its lengths);
// left to vllm serve's defaults, the same file is predicted far off. So
// the engine flags reach the simulation, as bench's do; an engine flag's
// error names the flag.
func TestCalibrateResultDeployment(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := filepath.Join(dir, "run.json")
	engine := []string{"--max-num-seqs", "8", "--kv-cache-dtype", "fp8"}
	mustRun(t, append([]string{"bench", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100-sxm", "--request-rate", "20", "--num-prompts", "200",
		"--random-range-ratio", "0.5", "--save-result", "--save-detailed", "--result-filename", run, "--quiet"}, engine...)...)
	base := []string{"calibrate", run, "--gpu", "h100-sxm", "--tensor-parallel-size", "1", "--max-evaluations", "2", "--quiet", "-o", filepath.Join(dir, "p.yaml")}
	same := mustRun(t, append(base, "--max_num_seqs", "8", "--kv-cache-dtype=fp8")...) // vLLM's spellings, as bench takes them
	if !strings.Contains(same.stdout, "replay of 200 requests") {
		t.Errorf("the detailed file is not replayed:\n%s", same.stdout)
	}
	defaults := mustRun(t, base...)
	for _, m := range []string{"ttft", "tpot"} {
		if e := beforeError(t, same.stdout, m); math.Abs(e) > 0.1 {
			t.Errorf("%s: %+.1f%% before fitting with bench's engine flags, want 0 (the file is that engine's run)", m, e)
		}
		if e := beforeError(t, defaults.stdout, m); math.Abs(e) < 20 {
			t.Errorf("%s: %+.1f%% before fitting on vllm serve's defaults, want far off (max_num_seqs 1024, not 8)", m, e)
		}
	}
	// A second run appended to the file (--append-result): two runs, each fitted.
	mustRun(t, append([]string{"bench", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h100-sxm", "--request-rate", "5", "--num-prompts", "50",
		"--append-result", "--result-filename", run, "--quiet"}, engine...)...)
	both := mustRun(t, append(base, engine...)...)
	for _, want := range []string{"calibrate: 2 runs on h100-sxm", "run.json#1", "run.json#2"} {
		if !strings.Contains(both.stdout, want) {
			t.Errorf("calibrate of an appended file lacks %q:\n%s", want, both.stdout)
		}
	}
	csv := shareddata.Path(t, "aiconfigurator_vllm_silicon.csv")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--quantization", "fp8", "-q", "awq"}, "--quantization fp8 and -q awq set the same thing to different values"},
		{[]string{"bench", "--tensor-parallel-size", "2", "-tp", "4"}, "--tensor-parallel-size 2 and -tp 4 set the same thing to different values"},
		{[]string{"calibrate", "--csv", csv, "--max-num-seqs", "8"}, "--max-num-seqs describes the deployment of result files"},
		{append(base[:len(base):len(base)], "--data-parallel-size", "2"), "calibrate re-simulates one engine"},
		{append(base[:len(base):len(base)], "--max-num-seqs", "0"), "--max-num-seqs"},
		{append(base[:len(base):len(base)], "--kv-cache-dtype", "fp7"), "--kv-cache-dtype"},
	} {
		r := servesim(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("servesim %v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
}

// beforeError returns the error, in percent, of metric's row in the
// "before" table of calibrate's output (one run).
func beforeError(t *testing.T, out, metric string) float64 {
	t.Helper()
	before, _, _ := strings.Cut(out, "## after")
	for _, line := range strings.Split(before, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 8 || strings.TrimSpace(cells[3]) != metric {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(cells[6]), "%"), 64)
		if err != nil {
			t.Fatalf("error cell %q: %v", cells[6], err)
		}
		return v
	}
	t.Fatalf("no %s row before fitting in:\n%s", metric, out)
	return 0
}
