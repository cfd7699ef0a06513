package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPlanSpecK: --spec-k searches speculative decoding off and on; under
// a TPOT bound below the plain engine's floor only k > 0 passes, and the
// table and the JSON report the winner's crossover.
func TestPlanSpecK(t *testing.T) {
	t.Parallel()
	args := []string{"plan", "--model", "llama-3.1-8b", "--gpus", "h100-sxm", "--tp-degrees", "1", "--precisions", "bf16",
		"--request-rate", "2", "--goodput", "ttft:2000", "tpot:6", "--num-prompts", "100", "--quiet", "--spec-k", "0,3",
		"--speculative-config", `{"method":"eagle3","num_speculative_tokens":2,"acceptance_dataset":"mt-bench"}`}
	r := mustRun(t, args...)
	for _, want := range []string{"chunked bf16 spec-k3", "no-spec slo-unreachable", `"num_speculative_tokens":3`,
		"speculative decoding: the winner runs spec-k3", "  k=3 pays there"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q:\n%s", want, r.stdout)
		}
	}
	j := mustRun(t, append(args, "--format", "json")...)
	var out struct {
		Speculative struct {
			WinnerK int `json:"winner_num_speculative_tokens"`
			Ks      []struct {
				K    int  `json:"num_speculative_tokens"`
				Pays bool `json:"pays_at_target"`
			} `json:"crossovers"`
		} `json:"speculative"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if s := out.Speculative; s.WinnerK != 3 || len(s.Ks) != 1 || !s.Ks[0].Pays {
		t.Errorf("speculative %+v", s)
	}
	bad := servesim(t, "plan", "--model", "llama-3.1-8b", "--gpus", "h100-sxm", "--request-rate", "2", "--goodput", "ttft:2000", "--spec-k", "0,2")
	if bad.code == 0 || !strings.Contains(bad.stderr, "needs the engine's speculative_config") {
		t.Errorf("exit %d, stderr %q", bad.code, bad.stderr)
	}
}
