package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bench --speculative-config runs speculative decoding: the summary
// carries the spec-decode counters, the JSON their keys, and TPOT falls
// against the same run without it.
func TestBenchSpeculativeConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"bench", "--num-prompts", "40", "--max-concurrency", "1", "--random-input-len", "128", "--random-output-len", "128"}
	spec := `{"method":"eagle3","num_speculative_tokens":3,"acceptance_rates":[0.8,0.6,0.4]}`
	r := mustRun(t, append(args, "--speculative-config", spec, "--save-result", "--result-dir", dir, "--result-filename", "spec.json")...)
	for _, want := range []string{"---------------Speculative Decoding---------------\nAcceptance rate (%):", "Acceptance length:", "Per-position acceptance (%):\n  Position 0:", "Spec decode draft time share (%):"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		MeanTPOT float64   `json:"mean_tpot_ms"`
		Length   float64   `json:"spec_decode_acceptance_length"`
		Rate     float64   `json:"spec_decode_acceptance_rate"`
		PerPos   []float64 `json:"spec_decode_per_position_acceptance_rates"`
		Drafts   int       `json:"spec_decode_num_drafts"`
		Accepted int       `json:"spec_decode_accepted_tokens"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	// 1 + 0.8 + 0.6 + 0.4 = 2.8 expected; 40·127 tokens after the first
	// give about 1800 drafts, so the mean is within a few percent.
	if res.Length < 2.65 || res.Length > 2.95 || len(res.PerPos) != 3 {
		t.Errorf("spec_decode_acceptance_length %v, per-position %v: want about 2.8 and 3 rates", res.Length, res.PerPos)
	}
	if want := 1 + float64(res.Accepted)/float64(res.Drafts); res.Length != want {
		t.Errorf("acceptance length %v, want 1 + accepted/drafts = %v", res.Length, want)
	}
	mustRun(t, append(args, "--save-result", "--result-dir", dir, "--result-filename", "plain.json")...)
	pb, _ := os.ReadFile(filepath.Join(dir, "plain.json"))
	var p struct {
		MeanTPOT float64 `json:"mean_tpot_ms"`
	}
	if err := json.Unmarshal(pb, &p); err != nil {
		t.Fatal(err)
	}
	if !(res.MeanTPOT < p.MeanTPOT/1.8) {
		t.Errorf("mean TPOT %v ms with EAGLE-3 against %v ms without: want at least 1.8x less", res.MeanTPOT, p.MeanTPOT)
	}
}

// Bad --speculative-config values are errors naming the field.
func TestBenchSpeculativeConfigErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ spec, want string }{
		{`{"method":"eagle3"}`, "num_speculative_tokens 0"},
		{`{"method":"tree","num_speculative_tokens":2,"acceptance_rate":0.5}`, `method "tree" is unknown`},
		{`{"method":"eagle3","num_speculative_tokens":2}`, "needs exactly one acceptance source"},
		{`{"model":"qwen2.5-7b","num_speculative_tokens":2,"acceptance_rate":0.5}`, "vocab"},
		{`eagle`, "not a JSON object"},
	} {
		r := servesim(t, "bench", "--num-prompts", "5", "--speculative-config", tc.spec)
		if r.code == 0 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--speculative-config %s: exit %d, stderr %q; want an error with %q", tc.spec, r.code, r.stderr, tc.want)
		}
	}
}
