package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestCapacitySpecK: --spec-k searches λ* for each k and prints where
// each stops paying; its JSON carries the same; without a
// --speculative-config it is an error saying what to give.
func TestCapacitySpecK(t *testing.T) {
	t.Parallel()
	spec := `{"method":"eagle3","num_speculative_tokens":3,"acceptance_dataset":"mt-bench"}`
	args := []string{"capacity", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "200", "--precision", "0.2", "--replications", "1", "--quiet",
		"--spec-k", "0,2,5", "--speculative-config", spec}
	r := mustRun(t, args...)
	for _, want := range []string{"by num_speculative_tokens", " off  [", "best: k=", "crossover rates compared:"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q:\n%s", want, r.stdout)
		}
	}
	if n := len(regexp.MustCompile(`(?m)^\s+[25]\s+\[[\d.]+, [\d.]+\)\s+(pays at every rate|never pays|[\d.]+ \[)`).FindAllString(r.stdout, -1)); n != 2 {
		t.Errorf("%d rows with a crossover, want 2:\n%s", n, r.stdout)
	}
	j := mustRun(t, append(args, "--json")...)
	var out struct {
		Speculative struct {
			Rows []struct {
				K         int      `json:"num_speculative_tokens"`
				Lower     float64  `json:"lower"`
				Crossover *float64 `json:"crossover"`
				Pays      bool     `json:"pays_at_every_rate"`
			} `json:"spec_sweep"`
			Rates []float64 `json:"crossover_rates"`
		} `json:"speculative"`
	}
	if err := json.Unmarshal([]byte(j.stdout), &out); err != nil {
		t.Fatalf("%v:\n%s", err, j.stdout)
	}
	if rows := out.Speculative.Rows; len(rows) != 3 || rows[0].K != 0 || rows[2].K != 5 || rows[1].Crossover == nil && !rows[1].Pays {
		t.Errorf("rows %+v", rows)
	}
	if len(out.Speculative.Rates) != 12 {
		t.Errorf("rates %v", out.Speculative.Rates)
	}
	bad := servesim(t, "capacity", "--goodput", "ttft:2000", "--spec-k", "0,2")
	if bad.code == 0 || !strings.Contains(bad.stderr, "--spec-k needs --speculative-config") {
		t.Errorf("exit %d, stderr %q", bad.code, bad.stderr)
	}
	bad = servesim(t, "capacity", "--goodput", "ttft:2000", "--spec-k", "2,0", "--speculative-config", spec)
	if bad.code == 0 || !strings.Contains(bad.stderr, "must include 0 (off) first") {
		t.Errorf("exit %d, stderr %q", bad.code, bad.stderr)
	}
	bad = servesim(t, "capacity", "--goodput", "ttft:2000", "--spec-k", "0,2", "--grid", "1,2", "--speculative-config", spec)
	if bad.code == 0 || !strings.Contains(bad.stderr, "leave out --grid and --report") {
		t.Errorf("exit %d, stderr %q", bad.code, bad.stderr)
	}
	bad = servesim(t, "capacity", "--goodput", "ttft:2000", "--spec-rates", "1,2")
	if bad.code == 0 || !strings.Contains(bad.stderr, "--spec-rates applies to --spec-k") {
		t.Errorf("exit %d, stderr %q", bad.code, bad.stderr)
	}
	bad = servesim(t, "capacity", "--goodput", "ttft:2000", "--spec-k", "0,9", "--speculative-config", spec)
	if bad.code == 0 || !strings.Contains(bad.stderr, "acceptance_dataset") {
		t.Errorf("exit %d, stderr %q", bad.code, bad.stderr)
	}
}
