package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docSamples are the command lines whose output docs/cli.md shows. Each
// output is the golden file testdata/golden/NAME, and docs/cli.md holds
// it verbatim in the fenced block after "<!-- golden: NAME -->". Paths
// are relative to the repository root, as the documentation writes them.
var docSamples = []struct {
	name string
	args []string
}{
	{"bench.txt", []string{"bench"}},
	{"run-sweep.txt", []string{"run", "examples/scenarios/sweep.yaml"}},
	{"run-rate-slo.txt", []string{"run", "examples/scenarios/rate-slo.yaml"}},
	{"capacity.txt", []string{"capacity", "--goodput", "ttft:2000", "tpot:100"}},
	{"tp.txt", []string{"tp", "--model", "llama-3.1-70b", "--goodput", "ttft:2000", "tpot:200", "--candidates", "2x2,4x1,8x1"}},
	{"tp-max-model-len.txt", []string{"tp", "--model", "llama-3.1-70b", "--max-model-len", "8192", "--goodput", "ttft:2000", "tpot:200", "--candidates", "2x2,4x1,8x1"}},
	{"day.txt", []string{"day", "--hours", "6", "--rate", "8", "--peak-hour", "3", "--policy", "running:24", "--events"}},
	{"plan-day.txt", []string{"plan", "--model", "llama-3.1-8b", "--gpus", "h100-sxm", "--tp-degrees", "1,2", "--precisions", "bf16", "--request-rate", "24",
		"--goodput", "ttft:1000", "tpot:20", "--num-prompts", "400", "--day-hours", "12", "--day-peak-hour", "12", "--policies", "fixed;running:32;in-flight:48"}},
	{"tp-moe.txt", []string{"tp", "--model", "gpt-oss-120b", "--goodput", "ttft:2000", "tpot:100", "--candidates", "1x2,2x1,tp2ep,tp1dp2,tp1dp2ep"}},
}

// docBlockRE finds the golden blocks of docs/cli.md.
var docBlockRE = regexp.MustCompile("(?s)<!-- golden: ([^ ]+) -->\n```\n(.*?)```\n")

const cliDoc = "../../docs/cli.md"

// TestDocSamples runs every documented command line, compares its output
// with its golden file and the golden file with docs/cli.md. go test
// -update rewrites the golden files and the blocks of docs/cli.md.
// The samples run in parallel, each in its own subtest; the doc is
// checked once they all have.
func TestDocSamples(t *testing.T) {
	t.Parallel()
	outs := make([]string, len(docSamples))
	t.Run("samples", func(t *testing.T) {
		for k, s := range docSamples {
			t.Run(s.name, func(t *testing.T) {
				t.Parallel()
				args := make([]string, len(s.args))
				for i, a := range s.args {
					if strings.HasPrefix(a, "examples/") {
						a = "../../" + a
					}
					args[i] = a
				}
				r := runCLI(args...)
				if r.code != 0 {
					t.Fatalf("servesim %s: exit %d: %s", strings.Join(s.args, " "), r.code, r.stderr)
				}
				out := "$ servesim " + strings.Join(s.args, " ") + "\n" + r.stdout
				golden(t, filepath.Join("golden", s.name), out)
				outs[k] = out
			})
		}
	})
	if slices.Contains(outs, "") {
		return // a sample failed to run: the doc cannot be checked
	}
	outputs := map[string]string{}
	for k, s := range docSamples {
		outputs[s.name] = outs[k]
	}

	doc, err := os.ReadFile(cliDoc)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	updated := docBlockRE.ReplaceAllStringFunc(string(doc), func(block string) string {
		m := docBlockRE.FindStringSubmatch(block)
		name, text := m[1], m[2]
		seen[name] = true
		want, ok := outputs[name]
		switch {
		case !ok:
			t.Errorf("%s shows golden %s, which no documented command makes (docSamples)", cliDoc, name)
		case *update:
			return fmt.Sprintf("<!-- golden: %s -->\n```\n%s```\n", name, want)
		case text != want:
			t.Errorf("%s: the block of %s differs from testdata/golden/%s (go test -update rewrites both)\ndoc:\n%s\ngolden:\n%s", cliDoc, name, name, text, want)
		}
		return block
	})
	for _, s := range docSamples {
		if !seen[s.name] {
			t.Errorf("%s has no block <!-- golden: %s --> for servesim %s", cliDoc, s.name, strings.Join(s.args, " "))
		}
	}
	if *update && updated != string(doc) {
		if err := os.WriteFile(cliDoc, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
