package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var bracketRE = regexp.MustCompile(`lambda\* in \[([\d.]+), ([\d.]+)\) req/s`)

func bracket(t *testing.T, out string) (lo, hi float64) {
	t.Helper()
	m := bracketRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no bracket in:\n%s", out)
	}
	lo, _ = strconv.ParseFloat(m[1], 64)
	hi, _ = strconv.ParseFloat(m[2], 64)
	return lo, hi
}

// TestCapacityFromFlags: bench's flags plus --goodput search λ*; the
// bracket has the stated precision and every probe agrees with it.
func TestCapacityFromFlags(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "capacity", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "1500", "--precision", "0.1", "--replications", "2", "--quiet")
	lo, hi := bracket(t, r.stdout)
	if (hi-lo)/lo > 0.1 {
		t.Errorf("bracket [%v, %v) wider than 10%%", lo, hi)
	}
	rows := regexp.MustCompile(`(?m)^\s+([\d.]+)\s+(PASS|FAIL)[*+]?\s`).FindAllStringSubmatch(r.stdout, -1)
	if len(rows) < 3 {
		t.Fatalf("too few probes:\n%s", r.stdout)
	}
	for _, row := range rows {
		rate, _ := strconv.ParseFloat(row[1], 64)
		if (rate <= lo && row[2] != "PASS") || (rate >= hi && row[2] != "FAIL") {
			t.Errorf("probe %v is %s, outside the bracket's story [%v, %v)", rate, row[2], lo, hi)
		}
	}
	if !strings.Contains(r.stdout, "TTFT <= 2000 ms, TPOT <= 100 ms for >= 99% of requests") {
		t.Errorf("criteria line missing:\n%s", r.stdout)
	}
}

// TestCapacityScenario: the workload, server and SLO come from the file.
func TestCapacityScenario(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "capacity", "../../examples/scenarios/rate-slo.yaml", "--replications", "2", "--precision", "0.1", "--quiet")
	bracket(t, r.stdout)
	if !strings.Contains(r.stdout, "TTFT <= 500 ms, TPOT <= 50 ms") {
		t.Errorf("the scenario's SLO is not used:\n%s", r.stdout)
	}
	bad := servesim(t, "capacity", "../../examples/scenarios/rate-slo.yaml", "--request-rate", "3")
	if bad.code != 2 || !strings.Contains(bad.stderr, "--request-rate: with a scenario file") {
		t.Errorf("exit %d, stderr %q", bad.code, bad.stderr)
	}
}

// TestCapacityGridShards: a rate grid split into two shards and merged
// prints exactly what the unsharded grid prints.
func TestCapacityGridShards(t *testing.T) {
	t.Parallel()
	args := []string{"capacity", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "800", "--replications", "2", "--grid", "10,30,40", "--quiet"}
	whole := mustRun(t, args...)
	dir := t.TempDir()
	var files []string
	for i := range 2 {
		r := mustRun(t, append(args, "--shard", strconv.Itoa(i)+"/2")...)
		f := filepath.Join(dir, "shard"+strconv.Itoa(i)+".json")
		if err := os.WriteFile(f, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	merged := mustRun(t, append([]string{"capacity", "--merge"}, files...)...)
	if merged.stdout != whole.stdout {
		t.Errorf("merged shards differ from the whole grid\nmerged:\n%s\nwhole:\n%s", merged.stdout, whole.stdout)
	}
	missing := servesim(t, "capacity", "--merge", files[0])
	if missing.code != 2 || !strings.Contains(missing.stderr, "a shard is missing") {
		t.Errorf("exit %d, stderr %q", missing.code, missing.stderr)
	}
}

// TestTP: infeasible candidates are reported, feasible ones searched, and
// the verdict follows the rule for a model that does not fit one GPU.
func TestTP(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "tp", "--model", "llama-3.1-70b", "--goodput", "ttft:2000", "tpot:200", "--candidates", "1x4,2x2,4x1",
		"--request-rate", "2", "--num-prompts", "1000", "--replications", "2", "--boundary-replications", "2", "--precision", "0.1", "--quiet")
	for _, want := range []string{"TP=1 x4      4  does not fit", "TP=2 x2", "TP=4 x1", "verdict: the model does not fit one GPU"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in:\n%s", want, r.stdout)
		}
	}
	r = mustRun(t, "tp", "--model", "qwen2.5-7b", "--gpu", "rtx4090", "--max-model-len", "32768", "--goodput", "ttft:2000", "tpot:100", "--candidates", "1x2,8x1",
		"--request-rate", "4", "--num-prompts", "800", "--replications", "2", "--quiet")
	for _, want := range []string{"TP=8 x1      8  impossible", "tp 8 must divide heads 28", "the model fits one GPU"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("missing %q in:\n%s", want, r.stdout)
		}
	}
}
