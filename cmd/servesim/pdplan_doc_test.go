package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pdDocCases are the plans of docs/disaggregation.md: its "Planning"
// section's llama-3.1-70b at TP 4 on H100 and A100, colocated against P/D
// shapes with H100 prefill and A100 or H100 decode, under one SLO and
// rate; and its multi-node section's llama-3.1-405b at TP 8 on one node
// against TP 16 on two (--topology h100-ndr-xe9680).
type pdDocCase struct {
	name string
	pd   bool   // the winner is disaggregated
	wins string // the winner's opening
	args []string
}

var pdDocCases = []pdDocCase{
	{"pd-wins", true, "1P1D h100-sxm tp4 / a100-80gb tp4", pdDocArgs("--random-input-len", "6000", "--random-output-len", "200", "--request-rate", "1.4", "--goodput", "ttft:2000", "tpot:40")},
	{"colocated-wins", false, "", pdDocArgs("--random-input-len", "300", "--random-output-len", "1000", "--request-rate", "3", "--goodput", "ttft:1500", "tpot:50")},
	{"multinode", false, "h100-sxm tp8 ", []string{"plan", "--model", "llama-3.1-405b", "--dataset-name", "random", "--random-input-len", "1024",
		"--random-output-len", "128", "--request-rate", "2", "--goodput", "ttft:3000", "tpot:60", "--num-prompts", "200", "--max-model-len", "4096",
		"--gpus", "h100-sxm", "--tp-degrees", "8,16", "--precisions", "bf16,fp8", "--max-replicas", "4", "--topology", "h100-ndr-xe9680", "--quiet"}},
}

func pdDocArgs(workload ...string) []string {
	args := append([]string{"plan", "--model", "llama-3.1-70b", "--dataset-name", "random"}, workload...)
	return append(args, "--random-range-ratio", "0.2", "--slo-target", "0.95", "--max-model-len", "8192", "--num-prompts", "400",
		"--gpus", "h100-sxm,a100-80gb", "--tp-degrees", "4", "--precisions", "bf16", "--max-replicas", "8",
		"--pd-options", "1P1D:h100-sxm/4:a100-80gb/4,1P2D:h100-sxm/4:a100-80gb/4,1P1D:h100-sxm/4:h100-sxm/4,2P1D:h100-sxm/4:h100-sxm/4", "--quiet")
}

const disaggDoc = "../../docs/disaggregation.md"

var pdDocBlockRE = regexp.MustCompile("(?s)<!-- pdplan: ([^ ]+) -->\n```\n(.*?)```\n")

// TestPDPlanDoc keeps the plan example of docs/disaggregation.md true to
// `servesim plan`: go test -update reruns each documented command and
// rewrites its block (the generator); SERVESIM_PDDOC_FULL=1 reruns them
// and compares byte for byte (about 6 s). The normal suite reruns each at
// 200 requests a run and checks that the winner is of the documented
// kind: P/D with an H100 prefill and an A100 decode pool for the
// prefill-heavy workload, colocated for the decode-heavy one.
func TestPDPlanDoc(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(disaggDoc)
	if err != nil {
		t.Fatal(err)
	}
	full := *update || os.Getenv("SERVESIM_PDDOC_FULL") == "1"
	outputs := map[string]string{}
	for _, c := range pdDocCases {
		args := slices.Clone(c.args)
		if !full {
			args[slices.Index(args, "--num-prompts")+1] = "200"
		}
		r := runCLI(args...)
		if r.code != 0 {
			t.Fatalf("servesim %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
		}
		winner := ""
		for _, l := range strings.Split(r.stdout, "\n") {
			if w, ok := strings.CutPrefix(l, "winner: "); ok {
				winner = w
			}
		}
		gotPD := regexp.MustCompile(`^\d+P\d+D `).MatchString(winner)
		if gotPD != c.pd || !strings.HasPrefix(winner, c.wins) {
			t.Errorf("%s: winner %q, want a %s winner opening %q\n%s", c.name, winner,
				map[bool]string{true: "disaggregated", false: "colocated"}[c.pd], c.wins, r.stdout)
		}
		outputs[c.name] = "$ servesim " + strings.Join(c.args, " ") + "\n" + r.stdout
	}
	seen := map[string]bool{}
	updated := pdDocBlockRE.ReplaceAllStringFunc(string(doc), func(block string) string {
		m := pdDocBlockRE.FindStringSubmatch(block)
		name, text := m[1], m[2]
		seen[name] = true
		want, ok := outputs[name]
		switch {
		case !ok:
			t.Errorf("%s shows plan %s, which pdDocCases does not run", disaggDoc, name)
		case *update:
			return fmt.Sprintf("<!-- pdplan: %s -->\n```\n%s```\n", name, want)
		case full && text != want:
			t.Errorf("%s: the block of %s differs from servesim's output (go test ./cmd/servesim -run TestPDPlanDoc -update rewrites it)\ndoc:\n%s\nnow:\n%s", disaggDoc, name, text, want)
		case !strings.HasPrefix(text, strings.SplitN(want, "\n", 2)[0]+"\n"):
			t.Errorf("%s: the block of %s does not open with its command line", disaggDoc, name)
		}
		return block
	})
	for _, c := range pdDocCases {
		if !seen[c.name] {
			t.Errorf("%s has no block <!-- pdplan: %s -->", disaggDoc, c.name)
		}
	}
	if *update && updated != string(doc) {
		if err := os.WriteFile(disaggDoc, []byte(updated), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
