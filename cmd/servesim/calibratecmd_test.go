package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
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

// TestCalibrateResultDeployment: a result file saved by bench with
// --save-detailed on an engine of 8 sequences and an FP8 KV cache, and
// calibrated from the same engine flags under the profile bench ran, is
// re-simulated exactly (each request at its start time with its lengths);
// left to vllm serve's defaults, the same file is predicted far off. So
// the engine flags reach the simulation, as bench's do. Engine flags with
// nothing they describe, or a dense model's data parallelism, are errors.
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
	// A file whose model the catalog lacks: skipped, naming its model_id,
	// unless --model-configs holds its config.json.
	data, err := os.ReadFile(run)
	if err != nil {
		t.Fatal(err)
	}
	custom := filepath.Join(dir, "custom.json")
	if err := os.WriteFile(custom, []byte(strings.ReplaceAll(string(data), `"meta-llama/Llama-3.1-8B-Instruct"`, `"acme/Custom-8B"`)), 0o644); err != nil {
		t.Fatal(err)
	}
	skip := mustRun(t, "calibrate", run, custom, "--gpu", "h100-sxm", "--tensor-parallel-size", "1", "--max-evaluations", "2", "-o", filepath.Join(dir, "q.yaml"), "--quiet")
	for _, k := range []string{"#1", "#2"} {
		if !strings.Contains(skip.stderr, "skipping "+custom+k+": model_id acme/Custom-8B: no model directory") {
			t.Errorf("unknown model: stderr %q; want %s skipped, naming model_id", skip.stderr, custom+k)
		}
	}
	if !strings.Contains(skip.stdout, "calibrate: 2 runs on h100-sxm (2 skipped)") {
		t.Errorf("unknown model: stdout %q; want the other file's two runs fitted", skip.stdout)
	}
	configs := t.TempDir()
	qwen3, err := os.ReadFile(filepath.Join(shareddata.Path(t, "model_configs"), "Qwen--Qwen3-8B.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(configs, "acme--custom-8b.json"), qwen3, 0o644); err != nil {
		t.Fatal(err)
	}
	withConfigs := mustRun(t, "calibrate", custom, "--gpu", "h100-sxm", "--tensor-parallel-size", "1", "--model-configs", configs, "--max-evaluations", "2", "-o", filepath.Join(dir, "q.yaml"), "--quiet")
	if !strings.Contains(withConfigs.stdout, "calibrate: 2 runs on h100-sxm (0 skipped)") {
		t.Errorf("--model-configs did not reach the engine:\n%s", withConfigs.stdout)
	}
	// An aiperf export of a closed loop: one run, c clients.
	export := filepath.Join(dir, "profile_export_aiperf.json")
	if err := os.WriteFile(export, []byte(`{"time_to_first_token": {"unit": "ms", "avg": 95.2}, "inter_token_latency": {"unit": "ms", "avg": 9.1},
		"request_latency": {"unit": "ms", "avg": 1250.3}, "input_sequence_length": {"unit": "tokens", "avg": 1024},
		"output_sequence_length": {"unit": "tokens", "avg": 128}, "request_count": {"unit": "requests", "avg": 80},
		"input_config": {"endpoint": {"model_names": ["meta-llama/Llama-3.1-8B-Instruct"]}, "loadgen": {"concurrency": 8, "request_count": 80}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	ai := mustRun(t, append(base[:1:1], export, "--gpu", "h100-sxm", "--tensor-parallel-size", "1", "--max-evaluations", "2", "--quiet", "-o", filepath.Join(dir, "ai.yaml"))...)
	if !strings.Contains(ai.stdout, "calibrate: 1 runs on h100-sxm") || !strings.Contains(ai.stdout, "tp1 1024x128 c8 | ttft | 95.2 ms") {
		t.Errorf("aiperf export:\n%s", ai.stdout)
	}
	// Its artifact directory, with the per-request records beside the export.
	var records strings.Builder
	for i := range 40 {
		fmt.Fprintf(&records, `{"metadata": {"benchmark_phase": "profiling", "request_start_ns": %d}, "metrics": {"input_sequence_length": {"value": %d}, "output_sequence_length": {"value": %d}}, "error": null}`+"\n",
			1_700_000_000_000_000_000+int64(i)*1_000_000, 900+7*i, 100+i)
	}
	if err := os.WriteFile(filepath.Join(dir, "profile_export.jsonl"), []byte(records.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ai = mustRun(t, append(base[:1:1], dir, "--gpu", "h100-sxm", "--tensor-parallel-size", "1", "--max-evaluations", "2", "--quiet", "-o", filepath.Join(dir, "ai.yaml"))...)
	if !strings.Contains(ai.stdout, "calibrate: 1 runs on h100-sxm") || !strings.Contains(ai.stdout, "tp1 mean 1024x128 c8 | ttft | 95.2 ms") {
		t.Errorf("aiperf artifact directory with its records:\n%s", ai.stdout)
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
