package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

// checkPage reads a written report and checks it is one HTML page with
// charts and the strings of want.
func checkPage(t *testing.T, path string, want ...string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	if !strings.HasPrefix(page, "<!DOCTYPE html>") || !strings.Contains(page, `<svg class="chart"`) {
		t.Errorf("%s: not an HTML page with charts", path)
	}
	for _, w := range want {
		if !strings.Contains(page, w) {
			t.Errorf("%s lacks %q", path, w)
		}
	}
}

// TestReportCommand: servesim report joins a simulated run and sweep
// with a real vLLM result into one page.
func TestReportCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bench := filepath.Join(dir, "sim.json")
	mustRun(t, "bench", "--num-prompts", "100", "--request-rate", "10", "--save-result", "--save-detailed", "--result-filename", bench, "--quiet")
	sweep := mustRun(t, "run", "testdata/small.yaml", "--format", "json")
	sweepFile := filepath.Join(dir, "small.json")
	if err := os.WriteFile(sweepFile, []byte(sweep.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "report.html")
	r := mustRun(t, "report", bench, "testdata/vllm/result_random.json", sweepFile, "-o", out, "--labels", "simulated, measured, sweep")
	if r.stdout != "" || !strings.Contains(r.stderr, "wrote "+out) {
		t.Errorf("stdout %q, stderr %q", r.stdout, r.stderr)
	}
	checkPage(t, out, "simulated", "measured", "Sweep over request rate", "Mean TTFT (ms)")

	// To stdout.
	r = mustRun(t, "report", "testdata/vllm/result_detailed.json", "-o", "-")
	if !strings.HasPrefix(r.stdout, "<!DOCTYPE html>") {
		t.Errorf("-o -: stdout starts %q", r.stdout[:min(len(r.stdout), 40)])
	}
}

func TestReportErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no files", []string{"report"}, "no result files"},
		{"missing file", []string{"report", "testdata/none.json"}, "none.json"},
		{"not a result", []string{"report", "testdata/small.yaml"}, "small.yaml: not a result file"},
		{"labels", []string{"report", "testdata/vllm/result_random.json", "--labels", "a,b"}, "--labels has 2 names for 1 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := servesim(t, tt.args...)
			if r.code != 2 || !strings.Contains(r.stderr, tt.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", r.code, r.stderr, tt.want)
			}
		})
	}
	if r := mustRun(t, "report", "-h"); !strings.Contains(r.stdout, "Usage: servesim report") {
		t.Errorf("report -h: %q", r.stdout)
	}
}

// TestReportHelpers: bench's --report writes its page (report.Write*Page
// write the others', tested in report).
func TestReportHelpers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()

	var o vllmbench.Flags
	fs := cliflag.NewFlagSet("bench")
	o.Define(fs)
	if err := fs.Parse([]string{"--num-prompts", "200", "--goodput", "ttft:500", "tpot:50"}); err != nil {
		t.Fatal(err)
	}
	if err := o.Resolve(fs, io.Discard); err != nil {
		t.Fatal(err)
	}
	sc, err := o.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sc.Config()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "bench.html")
	if err := reportBench(path, &o, sc, res); err != nil {
		t.Fatal(err)
	}
	checkPage(t, path, "servesim bench: vLLM-v1 engine", "TTFT distribution (CDF)", "KV-cache usage")

}

// TestRunReportFlag: run --report writes the sweep's page; merge writes the
// same page from shards; a shard refuses it.
func TestRunReportFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole.html")
	mustRun(t, "run", "testdata/small.yaml", "--quiet", "--report", whole)
	page, err := os.ReadFile(whole)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), "small") {
		t.Errorf("run --report wrote no chart or no scenario name (%d bytes)", len(page))
	}
	if r := servesim(t, "run", "testdata/small.yaml", "--shard", "0/2", "--report", filepath.Join(dir, "x.html")); r.code != 2 || !strings.Contains(r.stderr, "--report needs the whole sweep") {
		t.Errorf("--shard with --report: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestReportFlags: bench, capacity and tp write their page with --report.
func TestReportFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--num-prompts", "200", "--quiet"}, "TTFT distribution (CDF)"},
		{[]string{"capacity", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "300", "--quiet"}, "attainment"},
		{[]string{"tp", "--goodput", "ttft:2000", "tpot:100", "--num-prompts", "300", "--candidates", "1x1,2x1", "--quiet"}, "λ* per GPU"},
	} {
		path := filepath.Join(dir, tt.args[0]+".html")
		mustRun(t, append(tt.args, "--report", path)...)
		page, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%s --report: %v", tt.args[0], err)
		}
		if !strings.Contains(string(page), "<svg") || !strings.Contains(string(page), tt.want) {
			t.Errorf("%s --report: the page lacks a chart or %q", tt.args[0], tt.want)
		}
	}
}
