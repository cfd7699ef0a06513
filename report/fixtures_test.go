package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/queue"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/vllmbench"
	"github.com/servesim/servesim/workload"
)

// Result files the tests read. The servesim ones were written by the CLI
// (see testdata/README.md); the vLLM ones are the reference fixtures of
// vllm bench serve's exact format.
const (
	benchFile     = "testdata/servesim-bench.json"
	rateSweepFile = "testdata/rate-sweep.json"
	concSweepFile = "testdata/concurrency-sweep.json"
	capacityFile  = "testdata/capacity.json"
	vllmFile      = "../cmd/servesim/testdata/vllm/result_random.json"
	vllmDetailed  = "../cmd/servesim/testdata/vllm/result_detailed.json"
)

var fixtureFiles = []string{benchFile, vllmFile, vllmDetailed, rateSweepFile, concSweepFile, capacityFile}

// readJSON decodes a result file into a map (the first object).
func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// fcfsResult is a small simulated run with its records: an M/M/1-like
// FCFS queue, in milliseconds of CPU.
func fcfsResult(t *testing.T) *sim.Result {
	t.Helper()
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 8},
			Lengths:  workload.Random{InputLen: 128, OutputLen: 32},
		},
		Server:   queue.FCFS{Servers: 1, Service: distribution.Exponential{Rate: 10}},
		Requests: 600, Warmup: 60, Seed: 7,
		SLO: metrics.SLO{E2E: 1.0},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// screenRun is a TP screen of llama-3.1-70b on H100s, written out: two
// candidates that run and one that does not fit.
func screenRun(t *testing.T) *Run {
	t.Helper()
	model, err := cost.Model("llama-3.1-70b")
	if err != nil {
		t.Fatal(err)
	}
	gpu, err := cost.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	study := screen.Study{
		Engine:     batching.Defaults(model, gpu),
		Candidates: []screen.Candidate{{TP: 1, Replicas: 1}, {TP: 2, Replicas: 2}, {TP: 4, Replicas: 1}},
		Criteria:   capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.2}, 0.99),
		Requests:   2000, Warmup: 200, Replications: 3, BoundaryReplications: 5, CommonRate: 8,
	}
	rep := &screen.Report{Rows: []screen.Row{
		{Candidate: study.Candidates[0], GPUs: 1, FitErr: "weights 131.4 GiB do not fit 72.0 GiB"},
		{Candidate: study.Candidates[1], GPUs: 4, Fits: true,
			Shape:  cost.Shape{TP: 2, HeadsPerRank: 32, KVHeadsPerRank: 4},
			Memory: cost.Memory{TP: 2, WeightBytes: 65.7 * cost.GiB, KVPoolBytes: 4.1 * cost.GiB, KVTokens: 13424},
			Search: &capacity.Result{Lower: 6.1, Upper: 6.4}, LowerPerGPU: 1.525, UpperPerGPU: 1.6,
			CommonAttainment: 0.93, CommonGoodputPerGPU: 201.5},
		{Candidate: study.Candidates[2], GPUs: 4, Fits: true,
			Shape:  cost.Shape{TP: 4, HeadsPerRank: 16, KVHeadsPerRank: 2},
			Memory: cost.Memory{TP: 4, WeightBytes: 32.9 * cost.GiB, KVPoolBytes: 36.9 * cost.GiB, KVTokens: 241456},
			Search: &capacity.Result{Lower: 9.3, Upper: math.Inf(1)}, LowerPerGPU: 2.325, UpperPerGPU: math.Inf(1),
			CommonAttainment: 1, CommonGoodputPerGPU: 255.9},
	}}
	r := FromScreen(study, rep)
	r.Label = "tp screen"
	return r
}

// allRuns loads every fixture file and adds a library result and a TP
// screen: a page with every section.
func allRuns(t *testing.T) []*Run {
	t.Helper()
	runs, err := ReadRuns(fixtureFiles...)
	if err != nil {
		t.Fatal(err)
	}
	return append(runs, FromResult(fcfsResult(t), "fcfs library run"), screenRun(t))
}

// renderPage writes the report of runs and parses it.
func renderPage(t *testing.T, runs []*Run) (*html.Node, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := WriteHTML(&b, runs, Options{}); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, b.Bytes()
}

// find returns the elements below n (n included) for which match is true.
func find(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		if x.Type == html.ElementNode && match(x) {
			out = append(out, x)
		}
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasClass(class string) func(*html.Node) bool {
	return func(n *html.Node) bool {
		for _, c := range strings.Fields(attr(n, "class")) {
			if c == class {
				return true
			}
		}
		return false
	}
}

func tag(name string) func(*html.Node) bool {
	return func(n *html.Node) bool { return n.Data == name }
}

// text returns the text below n.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(x *html.Node) {
		if x.Type == html.TextNode {
			b.WriteString(x.Data)
		}
		for c := x.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}

// cellText is a table cell's own text, without the code of a key beside it.
func cellText(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
	}
	return strings.TrimSpace(b.String())
}

// tableByID returns the table with the id, as rows of cells (th and td).
func tableByID(t *testing.T, doc *html.Node, id string) [][]*html.Node {
	t.Helper()
	tables := find(doc, func(n *html.Node) bool { return n.Data == "table" && attr(n, "id") == id })
	if len(tables) != 1 {
		t.Fatalf("%d tables with id %q, want 1", len(tables), id)
	}
	var rows [][]*html.Node
	for _, tr := range find(tables[0], tag("tr")) {
		rows = append(rows, find(tr, func(n *html.Node) bool { return n.Data == "td" || n.Data == "th" }))
	}
	return rows
}

// runBench runs the scenario bench's options o build.
func runBench(t *testing.T, o *vllmbench.Options) (*scenario.Scenario, *sim.Result) {
	t.Helper()
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
	return sc, res
}
