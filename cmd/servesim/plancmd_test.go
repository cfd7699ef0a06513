package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanCommand: a small plan over two GPUs prints a ranked table with a
// winner and its vLLM command lines; the JSON form parses and names the
// same winner; bad plan flags exit 2 naming the flag and the value.
func TestPlanCommand(t *testing.T) {
	t.Parallel()
	args := []string{"plan", "--model", "llama-3.1-8b", "--request-rate", "20", "--goodput", "ttft:2000", "tpot:100",
		"--gpus", "h100-sxm,l40s", "--tp-degrees", "1,2", "--num-prompts", "600", "--quiet"}
	r := mustRun(t, args...)
	for _, want := range []string{"workload: Poisson", "winner: ", "vllm serve meta-llama/Llama-3.1-8B-Instruct", "vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("plan output lacks %q:\n%s", want, r.stdout)
		}
	}
	j := mustRun(t, append(args, "--format", "json")...)
	var res struct {
		Ranked []struct {
			Name string `json:"name"`
		} `json:"ranked"`
		Winners int `json:"winners"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &res); err != nil {
		t.Fatalf("plan --format json: %v\n%s", err, j.stdout)
	}
	if res.Winners < 1 || len(res.Ranked) < res.Winners {
		t.Fatalf("plan JSON: %d winners of %d ranked", res.Winners, len(res.Ranked))
	}
	if !strings.Contains(r.stdout, "winner: "+res.Ranked[0].Name) {
		t.Errorf("the table's winner is not the JSON's first ranked %q", res.Ranked[0].Name)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--tp-degrees", "0"}, `--tp-degrees: "0" is not a whole number in [1, 1024]`},
		{[]string{"--gpus", "h200"}, "--gpus: h200 has no price"},
		{[]string{"--gpus", "nope"}, "--gpus:"},
		{[]string{"--precisions", "int4"}, `--precisions: "int4": a plan searches bf16 and fp8`},
		{[]string{"--prices", "h100-sxm=-1"}, "--prices:"},
		{[]string{"--format", "xml"}, `--format "xml"`},
		{[]string{"--tensor-parallel-size", "2"}, "the plan chooses the deployment"},
		{[]string{"--chunked-prefill-options", "maybe"}, `"maybe": want on or off`},
		{[]string{"--gpu-profiles", "h100-sxm=/nonexistent/p.yaml"}, "--gpu-profiles h100-sxm:"},
		{[]string{"--gpu-profiles", "h100-sxm"}, `"h100-sxm" must look like gpu=FILE`},
	} {
		r := servesim(t, append(args, tt.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("servesim plan ... %v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	// A bad list from the scenario's plan: block is named by its key.
	file := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(file, []byte("workload: {arrival: {rate: 5}}\nslo: {ttft_ms: 2000}\nplan:\n  gpus: [h200]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := servesim(t, "plan", file, "--quiet"); r.code != 2 || !strings.Contains(r.stderr, "plan.gpus: h200 has no price") {
		t.Errorf("plan.gpus [h200]: exit %d, stderr %q; want 2 and plan.gpus: h200 has no price", r.code, r.stderr)
	}
	if r := servesim(t, "plan", "--model", "llama-3.1-8b", "--request-rate", "20"); r.code != 2 || !strings.Contains(r.stderr, "no SLO") {
		t.Errorf("plan without an SLO: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestPlanScenario: a scenario file's plan: block sets the search space;
// a plan flag on the command line overrides it; workload flags are refused
// beside a file.
func TestPlanScenario(t *testing.T) {
	t.Parallel()
	const file = "../../examples/scenarios/plan.yaml"
	r := mustRun(t, "plan", file, "--quiet")
	if !strings.Contains(r.stdout, "8 candidates") || !strings.Contains(r.stdout, "winner: ") {
		t.Errorf("plan %s: want 8 candidates (2 GPUs x 2 TP x 2 precisions) and a winner:\n%s", file, r.stdout)
	}
	r = mustRun(t, "plan", file, "--precisions", "fp8", "--quiet")
	if !strings.Contains(r.stdout, "4 candidates") || strings.Contains(r.stdout, " bf16 ") {
		t.Errorf("--precisions fp8 over the file's [bf16, fp8]: want 4 fp8 candidates:\n%s", r.stdout)
	}
	if r := servesim(t, "plan", file, "--request-rate", "5"); r.code != 2 || !strings.Contains(r.stderr, "--request-rate: with a scenario file") {
		t.Errorf("a workload flag beside a file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestPlanScenarioMoE: examples/scenarios/plan-moe.yaml searches
// gpt-oss-120b over TP, data and expert parallelism: 2 GPUs × (3 TP × 3
// DP × 2 EP settings, less EP over one GPU) = 34 candidates, and data
// parallelism over four H100s wins (as docs/cli.md says), cheaper than
// replicas of TP=1 H100 engines, which the same plan without data
// parallelism picks.
func TestPlanScenarioMoE(t *testing.T) {
	t.Parallel()
	const file = "../../examples/scenarios/plan-moe.yaml"
	r := mustRun(t, "plan", file, "--quiet")
	if !strings.Contains(r.stdout, "34 candidates") || !strings.Contains(r.stdout, "  h100-sxm tp1 dp4 seqs1024 mnbt8192 chunked bf16 x1 (4 GPUs)") ||
		!strings.Contains(r.stdout, "tie: 4 candidates at $15.80/h") ||
		!strings.Contains(r.stdout, "vllm serve openai/gpt-oss-120b --tensor-parallel-size 1 --data-parallel-size 4 ") {
		t.Errorf("plan %s: want 34 candidates and h100-sxm tp1 dp4 x1 among the winners at $15.80/h:\n%s", file, r.stdout)
	}
	r = mustRun(t, "plan", file, "--dp-degrees", "1", "--expert-parallel-options", "off", "--quiet")
	if !strings.Contains(r.stdout, "6 candidates") || !strings.Contains(r.stdout, "winner: h100-sxm tp1 seqs1024 mnbt8192 chunked bf16 x5 (5 GPUs), $19.75/h") {
		t.Errorf("plan %s without data or expert parallelism: want 6 candidates and five TP=1 H100s at $19.75/h:\n%s", file, r.stdout)
	}
}
