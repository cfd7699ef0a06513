package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/memwatch"
)

// TestSummaryOnlyEverywhere: every command that runs simulations takes
// --summary-only, with bench's words in its help (quantile sketches,
// memory following the requests in flight). Where the output shows
// percentiles (bench, run) it says they come from sketches; where it
// shows verdicts, which count requests (capacity, tp), it is the same
// with the flag as without.
func TestSummaryOnlyEverywhere(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := scenarioFile(t, dir, "s.yaml", `name: summary
seed: 3
requests: 300
warmup: 30
replications: 2
workload:
  arrival: {process: poisson, rate: 10}
  lengths: {kind: random, input: 1024, output: 128, range_ratio: 0.2}
slo: {ttft_ms: 500, tpot_ms: 50, target: 0.99}
sweep: {param: workload.arrival.rate, values: [10, 40]}
`)
	search := []string{"--replications", "2", "--boundary-replications", "2", "--precision", "0.2"}
	tests := []struct {
		name string
		args []string
		note string // stdout has it with --summary-only, not without; "": stdout is the same
	}{
		{"bench", []string{"bench", "--num-prompts", "200", "--request-rate", "10"},
			"Percentiles:                             from quantile sketches, within 0.5% (--summary-only)"},
		{"run", []string{"run", sc}, "# times in ms, throughputs per second; means over replications; percentiles from quantile sketches, within 0.5% (summary mode);"},
		{"run json", []string{"run", sc, "--format", "json"}, `"summary_only": true,`},
		{"capacity", append([]string{"capacity", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "300"}, search...), ""},
		{"capacity scenario", append([]string{"capacity", sc}, search...), ""},
		{"capacity json", append([]string{"capacity", sc, "--json"}, search...), ""},
		{"capacity grid", []string{"capacity", sc, "--grid", "10,40", "--replications", "2"}, ""},
		{"tp", append([]string{"tp", "--goodput", "ttft:2000", "tpot:100", "--candidates", "1x1,2x1", "--num-prompts", "300"}, search...), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			without := mustRunCLI(t, append(slices.Clone(tt.args), "--quiet")...)
			with := mustRunCLI(t, append(slices.Clone(tt.args), "--summary-only", "--quiet")...)
			if tt.note == "" {
				if with.stdout != without.stdout {
					t.Errorf("--summary-only changed the verdicts:\nwith:\n%s\nwithout:\n%s", with.stdout, without.stdout)
				}
				return
			}
			if !strings.Contains(with.stdout, tt.note) {
				t.Errorf("with --summary-only, no %q in:\n%s", tt.note, with.stdout)
			}
			if strings.Contains(without.stdout, tt.note) {
				t.Errorf("without --summary-only, %q in:\n%s", tt.note, without.stdout)
			}
		})
	}

	for _, cmd := range []string{"bench", "run", "capacity", "tp"} {
		help := runCLI(cmd, "-h").stdout
		_, after, ok := strings.Cut(help, "\n  --summary-only\n")
		line, _, _ := strings.Cut(after, "\n")
		for _, want := range []string{"keep quantile sketches (percentiles within 0.5%) instead of every request's record", "memory follows the requests in flight, not the requests run"} {
			if !ok || !strings.Contains(line, want) {
				t.Errorf("servesim %s -h: --summary-only does not say %q: %q", cmd, want, line)
			}
		}
	}
}

// TestSummaryOnlyRejected: where --summary-only cannot apply the command
// says why.
func TestSummaryOnlyRejected(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sc := scenarioFile(t, dir, "s.yaml", "requests: 100\nreplications: 2\nworkload:\n  arrival: {rate: 5}\n  lengths: {kind: fixed, input: 64, output: 8}\nslo: {ttft_ms: 500}\n")
	var shards []string
	for i, extra := range [][]string{nil, {"--summary-only"}} {
		r := mustRunCLI(t, append([]string{"run", sc, "--quiet", "--shard", []string{"0/2", "1/2"}[i]}, extra...)...)
		path := filepath.Join(dir, []string{"a.json", "b.json"}[i])
		if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		shards = append(shards, path)
	}
	grid := mustRunCLI(t, "capacity", sc, "--grid", "5", "--replications", "2", "--shard", "0/1", "--quiet").stdout
	gridFile := scenarioFile(t, dir, "grid.json", grid)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"capacity merge", []string{"capacity", "--merge", "--summary-only", gridFile}, "capacity: --summary-only: --merge joins the shards' verdicts and runs nothing; give it to the --grid --shard runs"},
		{"merge", append([]string{"merge", "--summary-only"}, shards...), "merge: unknown flag --summary-only"},
		{"merge of both modes", append([]string{"merge"}, shards...), "one ran in summary mode (quantile sketches) and the other did not: run every shard with or every shard without --summary-only"},
		{"bench save-detailed", []string{"bench", "--summary-only", "--save-detailed"}, "--save-detailed needs every request's record: drop --summary-only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := runCLI(tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
				t.Errorf("servesim %s: exit %d, stderr %q; want 2 and %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.want)
			}
		})
	}
}

// TestSummaryOnlyMemory: with --summary-only a run's memory follows the
// requests in the system, not the requests run: 200,000 requests through
// an FCFS server at ρ = 0.5 (and a capacity search, whose overloaded
// probes stop early) stay under 8 MB of heap, where their records take
// at least 12 MB. The sampled peak of the records is 16 MB for the
// capacity search (about 80 bytes a record, live) or 30 MB when a sample
// catches a slice mid-growth, its old array not yet collected, which
// happens in some runs and not others: so the bound is under the live
// size, not the transient. Not parallel: it reads process-wide heap
// counters.
func TestSummaryOnlyMemory(t *testing.T) {
	sc := scenarioFile(t, t.TempDir(), "big.yaml", `requests: 200000
workload:
  arrival: {rate: 50}
  lengths: {kind: fixed, input: 1, output: 1}
server: {kind: fcfs, servers: 1, service: "exp:10ms"}
slo: {e2el_ms: 200, target: 0.9}
`)
	for _, args := range [][]string{
		{"run", sc, "--workers", "1"},
		{"capacity", sc, "--workers", "1", "--replications", "1", "--boundary-replications", "1", "--start", "20", "--precision", "0.5"},
	} {
		var peak [2]uint64
		for i, extra := range []string{"--quiet", "--summary-only"} {
			peak[i] = memwatch.Peak(8<<20, func() { mustRunCLI(t, append(slices.Clone(args), extra, "--quiet")...) })
		}
		t.Logf("%s: peak heap %d MB with records, %d MB with --summary-only", args[0], peak[0]>>20, peak[1]>>20)
		if peak[1] >= 8<<20 || peak[0] < 12<<20 {
			t.Errorf("%s: peak heap %d MB with records, %d MB with --summary-only; want >= 12 and < 8", args[0], peak[0]>>20, peak[1]>>20)
		}
	}
}
