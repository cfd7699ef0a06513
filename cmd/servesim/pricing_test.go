package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPricedBy: every output names the profile that priced it, with its
// measured error, and says when a GPU runs on borrowed numbers or on a
// datasheet profile; bench prints it in servesim's block, after vLLM's,
// and in the JSON.
func TestPricedBy(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "bench", "--num-prompts", "10", "--quiet")
	vllm, extra, ok := strings.Cut(r.stdout, "servesim (not in vLLM's output)")
	if !ok || strings.Contains(vllm, "Priced by") || !strings.Contains(extra, "Priced by:") || !strings.Contains(extra, "profile h100-sxm v7, fitted on") {
		t.Errorf("bench summary: want \"Priced by:\" in servesim's block only:\n%s", r.stdout)
	}
	var doc struct {
		Servesim map[string]any `json:"servesim"`
	}
	if err := json.Unmarshal(benchJSON(t, nil, "--num-prompts", "10", "--gpu", "h100-pcie", "--max-model-len", "4096", "--quiet"), &doc); err != nil {
		t.Fatal(err)
	}
	if p, _ := doc.Servesim["priced_by"].(string); !strings.HasPrefix(p, "profile h100-pcie v7, BORROWED from h100-sxm") {
		t.Errorf("bench JSON priced_by = %q", p)
	}
	r = mustRun(t, "bench", "--num-prompts", "10", "--gpu", "rtx4090", "--max-model-len", "4096", "--quiet")
	if _, extra, _ := strings.Cut(r.stdout, "servesim (not in vLLM's output)"); !strings.Contains(extra, "Priced by:") || !strings.Contains(extra, "profile rtx4090 v1, DATASHEET profile by the GDDR memory-class rule") || !strings.Contains(extra, "TPOT ±3.0%, TTFT ±4.9% (1 held-out RTX 4090 run") {
		t.Errorf("bench summary lacks the datasheet profile:\n%s", r.stdout)
	}
	r = mustRun(t, "tp", "--model", "qwen2.5-7b", "--gpu", "rtx4090", "--max-model-len", "32768", "--goodput", "ttft:2000", "tpot:100", "--candidates", "1x2",
		"--request-rate", "4", "--num-prompts", "200", "--replications", "1", "--quiet")
	if !strings.Contains(r.stdout, "priced by: profile rtx4090 v1, DATASHEET") {
		t.Errorf("tp output lacks the datasheet profile:\n%s", r.stdout)
	}
	r = mustRun(t, "capacity", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "300", "--precision", "0.2", "--replications", "1", "--quiet")
	if !strings.Contains(r.stdout, "priced by: profile h100-sxm v7") {
		t.Errorf("capacity output lacks the profile:\n%s", r.stdout)
	}
	r = mustRun(t, "plan", "--model", "llama-3.1-8b", "--request-rate", "5", "--goodput", "ttft:2000", "tpot:100",
		"--gpus", "h100-sxm,rtx4090", "--prices", "rtx4090=0.7", "--tp-degrees", "1", "--num-prompts", "200", "--max-model-len", "4096", "--quiet")
	for _, want := range []string{"priced by: profile h100-sxm v7", "priced by: profile rtx4090 v1, DATASHEET"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("plan output lacks %q:\n%s", want, r.stdout)
		}
	}
}
