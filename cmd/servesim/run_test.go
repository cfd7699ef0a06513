package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A small FCFS sweep's table matches testdata/fcfs.golden.
func TestRunGolden(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "run", "testdata/fcfs.yaml")
	if r.stderr != "" {
		t.Errorf("stderr = %q", r.stderr)
	}
	golden(t, "fcfs.golden", r.stdout)
}

// The table does not depend on the parallelism.
func TestRunWorkers(t *testing.T) {
	t.Parallel()
	a := mustRun(t, "run", "testdata/small.yaml", "--workers", "1", "--format", "json")
	b := servesimIn(t, "", []string{"GOMAXPROCS=3"}, "run", "testdata/small.yaml", "--format", "json")
	if a.stdout != b.stdout {
		t.Error("--workers 1 and GOMAXPROCS=3 give different JSON")
	}
}

// Shards 0/2 and 1/2, merged, give the unsharded run's table and JSON.
func TestShardMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, sh := range []string{"0/2", "1/2"} {
		r := mustRun(t, "run", "testdata/small.yaml", "--shard", sh)
		name := filepath.Join(dir, "shard"+sh[:1]+".json")
		if err := os.WriteFile(name, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(r.stdout, `"shard": "`+sh+`"`) {
			t.Errorf("shard %s output does not say so", sh)
		}
	}
	s0, s1 := filepath.Join(dir, "shard0.json"), filepath.Join(dir, "shard1.json")
	whole := mustRun(t, "run", "testdata/small.yaml")
	merged := mustRun(t, "merge", s1, s0)
	if merged.stdout != whole.stdout {
		t.Errorf("merged table differs from the unsharded one:\n%s\nwant:\n%s", merged.stdout, whole.stdout)
	}
	wholeJSON := mustRun(t, "run", "testdata/small.yaml", "--format", "json")
	mergedJSON := mustRun(t, "merge", s0, s1, "--format", "json")
	if mergedJSON.stdout != wholeJSON.stdout {
		t.Error("merged JSON differs from the unsharded JSON")
	}

	// Incomplete, duplicated and foreign inputs are errors.
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"merge", s0}, "jobs missing"},
		{[]string{"merge", s0, s1, s0}, "is in both"},
	} {
		r := servesim(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("servesim %v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}
	other := mustRun(t, "run", "testdata/closed.yaml", "--format", "json")
	o := filepath.Join(dir, "other.json")
	if err := os.WriteFile(o, []byte(other.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := servesim(t, "merge", s0, o); r.code != 2 || !strings.Contains(r.stderr, "different scenario files") {
		t.Errorf("merging two scenarios: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestPlots(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct{ scenario, file string }{
		{"testdata/small.yaml", "rate.png"},
		{"testdata/closed.yaml", "closed.svg"},
	} {
		out := filepath.Join(dir, tt.file)
		r := mustRun(t, "run", tt.scenario, "--plot", out)
		if !strings.Contains(r.stdout, "# ") {
			t.Errorf("run --plot printed no table")
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		png := bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n"))
		svg := bytes.Contains(data[:min(len(data), 200)], []byte("<svg"))
		if !png && !svg {
			t.Errorf("%s is neither a PNG nor an SVG", tt.file)
		}
	}
	// Plots from merged shards.
	s := mustRun(t, "run", "testdata/closed.yaml", "--format", "json")
	j := filepath.Join(dir, "all.json")
	if err := os.WriteFile(j, []byte(s.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, "merge", j, "--plot", filepath.Join(dir, "merged.png"))
	if _, err := os.Stat(filepath.Join(dir, "merged.png")); err != nil {
		t.Error(err)
	}
}
