package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
)

// TestProfileOfAnotherGPU: an efficiency profile written for another GPU,
// or naming none, is refused where a deployment would use it (bench's
// --efficiency-profile, plan's --gpu-profiles), naming both GPUs; as
// calibrate's --start it is a starting point only: a printed note, and the
// profile written names the runs' GPU, so it loads for them.
func TestProfileOfAnotherGPU(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gpu, err := cost.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	h100 := cost.DefaultProfile(gpu) // the GPU's profile file
	write := func(name string, p cost.Profile) string {
		b, err := p.MarshalYAMLBytes()
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	h100File := write("h100.yaml", h100)
	none := h100
	none.GPU = ""
	noneFile := write("none.yaml", none)

	mustRun(t, "bench", "--num-prompts", "5", "--gpu", "h100-sxm", "--efficiency-profile", h100File, "--quiet")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "--num-prompts", "5", "--gpu", "h200", "--efficiency-profile", h100File}, "--efficiency-profile: " + h100File + ": cost: the profile describes h100-sxm, not the deployment's h200"},
		{[]string{"bench", "--num-prompts", "5", "--gpu", "h100-sxm", "--efficiency-profile", noneFile}, "the profile names no GPU"},
		{[]string{"plan", "--goodput", "ttft:2000", "--gpus", "h200", "--gpu-profiles", "h200=" + h100File}, "--gpu-profiles h200: cost: the profile describes h100-sxm, not the deployment's h200"},
	} {
		r := servesim(t, tt.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tt.want) {
			t.Errorf("servesim %v: exit %d, stderr %q; want 2 and %q", tt.args, r.code, r.stderr, tt.want)
		}
	}

	run := filepath.Join(dir, "run.json")
	mustRun(t, "bench", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "h200", "--request-rate", "20", "--num-prompts", "40",
		"--save-result", "--result-filename", run, "--quiet")
	out := filepath.Join(dir, "h200.yaml")
	r := mustRun(t, "calibrate", run, "--gpu", "h200", "--tensor-parallel-size", "1", "--max-evaluations", "2", "--start", h100File, "-o", out)
	if want := "note: --start " + h100File + " describes h100-sxm, not the runs' h200"; !strings.Contains(r.stderr, want) {
		t.Errorf("calibrate --start of another GPU: stderr %q lacks %q", r.stderr, want)
	}
	p, err := cost.LoadProfile(out)
	if err != nil || p.GPU != "h200" {
		t.Fatalf("the fitted profile: gpu %q, %v; want h200", p.GPU, err)
	}
	mustRun(t, "bench", "--num-prompts", "5", "--gpu", "h200", "--efficiency-profile", out, "--quiet")
}
