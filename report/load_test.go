package report

import (
	"bytes"
	"errors"
	"github.com/servesim/servesim/report/chart"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/scenario"
)

// TestLoad reads each kind of result file and checks what it holds
// against the file itself.
func TestLoad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		kind   Kind
		source Source
		points int
		param  string
		slo    bool
	}{
		{benchFile, Bench, Simulated, 1, "", true},
		{vllmFile, Bench, Measured, 1, "", false},
		{vllmDetailed, Bench, Measured, 1, "", false},
		{rateSweepFile, Sweep, Simulated, 6, "workload.arrival.rate", true},
		{concSweepFile, Sweep, Simulated, 7, "workload.closed.clients", false},
		{capacityFile, Capacity, Simulated, 6, "rate", true},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := Load(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if r.Kind != tt.kind || r.Source != tt.source || len(r.Points) != tt.points || r.Param != tt.param || (r.SLO != nil) != tt.slo {
				t.Errorf("kind %v, source %v, %d points, param %q, slo %v; want %v, %v, %d, %q, %v",
					r.Kind, r.Source, len(r.Points), r.Param, r.SLO != nil, tt.kind, tt.source, tt.points, tt.param, tt.slo)
			}
			if r.File != tt.file || r.Label == "" || len(r.Setup) == 0 {
				t.Errorf("file %q, label %q, %d setup fields", r.File, r.Label, len(r.Setup))
			}
		})
	}
}

// TestLoadBenchMetrics: a single result's metrics are its file's numbers,
// under the same keys, and its setup is the file's header.
func TestLoadBenchMetrics(t *testing.T) {
	t.Parallel()
	for _, file := range []string{benchFile, vllmFile} {
		r, err := Load(file)
		if err != nil {
			t.Fatal(err)
		}
		m := readJSON(t, file)
		p := r.Points[0]
		for _, key := range []string{"duration", "completed", "request_throughput", "output_throughput", "mean_ttft_ms", "p99_ttft_ms", "median_itl_ms"} {
			if got, ok := p.Metric(key); !ok || got != m[key].(float64) {
				t.Errorf("%s %s = %v (%v), want %v", file, key, got, ok, m[key])
			}
		}
		if got := r.Get("model_id"); got != m["model_id"] {
			t.Errorf("%s model_id %q, want %q", file, got, m["model_id"])
		}
		// request_goodput is null without --goodput (the vLLM fixture),
		// a number with it (the bench fixture).
		g, ok := p.Metric("request_goodput")
		if want, has := m["request_goodput"].(float64); ok != has || has && g != want {
			t.Errorf("%s: request_goodput %v (%v), the file's %v", file, g, ok, m["request_goodput"])
		}
	}
}

// TestLoadVLLMDetailed: vLLM's per-request lists become samples in ms:
// ttfts, the pooled itls, latencies as E2EL, and TPOT derived as vLLM
// derives it.
func TestLoadVLLMDetailed(t *testing.T) {
	t.Parallel()
	r, err := Load(vllmDetailed)
	if err != nil {
		t.Fatal(err)
	}
	m := readJSON(t, vllmDetailed)
	s := r.Points[0].Samples
	ttfts, lats, outs := m["ttfts"].([]any), m["latencies"].([]any), m["output_lens"].([]any)
	var itls int
	for _, l := range m["itls"].([]any) {
		itls += len(l.([]any))
	}
	if len(s["ttft"]) != len(ttfts) || len(s["e2el"]) != len(lats) || len(s["itl"]) != itls || len(s["tpot"]) != len(ttfts) {
		t.Fatalf("samples ttft %d, e2el %d, itl %d, tpot %d; want %d, %d, %d, %d",
			len(s["ttft"]), len(s["e2el"]), len(s["itl"]), len(s["tpot"]), len(ttfts), len(lats), itls, len(ttfts))
	}
	for i := range ttfts {
		ttft, lat, o := ttfts[i].(float64), lats[i].(float64), outs[i].(float64)
		if s["ttft"][i] != 1000*ttft || s["e2el"][i] != 1000*lat {
			t.Errorf("request %d: ttft %v, e2el %v", i, s["ttft"][i], s["e2el"][i])
		}
		if w := 1000 * (lat - ttft) / (o - 1); math.Abs(s["tpot"][i]-w) > 1e-9 {
			t.Errorf("request %d: tpot %v, want %v", i, s["tpot"][i], w)
		}
	}
	// The mean of the pooled ITLs is the file's mean_itl_ms.
	var sum float64
	for _, v := range s["itl"] {
		sum += v
	}
	if got, w := sum/float64(len(s["itl"])), m["mean_itl_ms"].(float64); math.Abs(got-w) > 1e-6*w {
		t.Errorf("mean of itls %v ms, file's mean_itl_ms %v", got, w)
	}
}

// TestLoadServesimDetailed: a servesim bench file's samples: TTFT, ITL
// and E2E from vLLM's lists (as a measured file's, so the two draw the
// same four CDFs side by side), TPOT from servesim's own list; and its
// series.
func TestLoadServesimDetailed(t *testing.T) {
	t.Parallel()
	r, err := Load(benchFile)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Points[0]
	completed := int(p.Metrics["completed"])
	for _, key := range []string{"ttft", "e2el", "tpot"} {
		if len(p.Samples[key]) != completed {
			t.Errorf("%d %s samples, want %d", len(p.Samples[key]), key, completed)
		}
	}
	m := readJSON(t, benchFile)
	var itls []float64
	for _, l := range m["itls"].([]any) {
		for _, v := range l.([]any) {
			itls = append(itls, 1000*v.(float64))
		}
	}
	if !slices.Equal(p.Samples["itl"], itls) || len(itls) == 0 {
		t.Errorf("%d itl samples, want the file's %d", len(p.Samples["itl"]), len(itls))
	}
	for i, v := range m["latencies"].([]any) {
		if i < len(p.Samples["e2el"]) && p.Samples["e2el"][i] != 1000*v.(float64) {
			t.Fatalf("e2el sample %d = %v ms, the file's latencies say %v s", i, p.Samples["e2el"][i], v)
		}
	}
	var sum float64
	for _, v := range itls {
		sum += v
	}
	if got, w := sum/float64(len(itls)), p.Metrics["mean_itl_ms"]; math.Abs(got-w) > 1e-9*w {
		t.Errorf("mean of the itl samples %v ms, the file's mean_itl_ms %v", got, w)
	}
	if len(p.Series) == 0 || len(p.Series[0].Times) == 0 {
		t.Fatal("no series")
	}
}

// TestLoadAppended: vLLM's --append-result file (objects one per line)
// is a sweep over what differs between them.
func TestLoadAppended(t *testing.T) {
	t.Parallel()
	one, err := os.ReadFile(vllmFile)
	if err != nil {
		t.Fatal(err)
	}
	two := bytes.Replace(one, []byte(`"request_rate": 10.0`), []byte(`"request_rate": 20.0`), 1)
	r, err := Parse(append(append(one, '\n'), two...), "openai-sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Kind != Sweep || r.Param != "request_rate" || len(r.Points) != 2 || r.Points[0].X != 10 || r.Points[1].X != 20 || r.Label != "openai-sweep" {
		t.Errorf("kind %v param %q points %d x %v, %v label %q", r.Kind, r.Param, len(r.Points), r.Points[0].X, r.Points[1].X, r.Label)
	}
	if r.Get("request_rate") != "" {
		t.Error("the swept field is still in the setup")
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, data, want string }{
		{"empty", "", "empty"},
		{"not JSON", "hello", "not a result file"},
		{"an array", "[1, 2]", "not a result file"},
		{"another object", `{"a": 1}`, "want the JSON of servesim bench"},
		{"a grid shard", `{"kind": "servesim-capacity-grid", "jobs": []}`, "--merge --json"},
		{"truncated", `{"duration": 1, "completed": 2`, "not a result file"},
		{"bad series", `{"backend": "servesim", "duration": 1, "completed": 1, "series": [1]}`, "series"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.data), "x.json")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "x.json: ") {
				t.Errorf("error %v, want one naming x.json and saying %q", err, tt.want)
			}
		})
	}
	if _, err := Load("testdata/missing.json"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestFromResult: a library result reports the same numbers as its JSON,
// and its records become samples.
func TestFromResult(t *testing.T) {
	t.Parallel()
	res := fcfsResult(t)
	r := FromResult(res, "lib")
	p := r.Points[0]
	if r.Label != "lib" || r.Kind != Bench || r.Source != Simulated || r.SLO == nil || r.SLO.E2EL != 1000 {
		t.Errorf("run %+v", r)
	}
	if got := p.Metrics["request_throughput"]; got != res.RequestThroughput {
		t.Errorf("request_throughput %v, want %v", got, res.RequestThroughput)
	}
	if got, w := p.Metrics["p99_e2el_ms"], 1000*res.E2E().Percentile(99); got != w {
		t.Errorf("p99_e2el_ms %v, want %v", got, w)
	}
	if len(p.Samples["e2el"]) != res.Completed || len(p.Attainment) != 1 || p.Attainment[0] != res.Attainment {
		t.Errorf("%d e2el samples for %d completed; attainment %v", len(p.Samples["e2el"]), res.Completed, p.Attainment)
	}
}

// TestSweepCharts: the plot of a rate sweep with an SLO leads with
// attainment and shades the bracket; a concurrency sweep adds ITL by
// concurrency; one point draws one chart.
func TestSweepCharts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file   string
		titles []string
	}{
		{rateSweepFile, []string{"SLO attainment vs request rate", "Throughput vs latency"}},
		{concSweepFile, []string{"Throughput vs latency", "Inter-token latency by concurrency"}},
		{benchFile, []string{"Throughput vs latency"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			r, err := Load(tt.file)
			if err != nil {
				t.Fatal(err)
			}
			cs := SweepCharts(r)
			var titles []string
			for _, c := range cs {
				titles = append(titles, c.Title)
				if !c.HasData() {
					t.Errorf("%q has no data", c.Title)
				}
			}
			if strings.Join(titles, "|") != strings.Join(tt.titles, "|") {
				t.Errorf("charts %q, want %q", titles, tt.titles)
			}
			if tt.file == rateSweepFile && (len(cs[0].Bands) != 1 || cs[0].Bands[0].Lo != 30 || cs[0].Bands[0].Hi != 35) {
				t.Errorf("bands %+v, want the bracket [30, 35)", cs[0].Bands)
			}
		})
	}
}

// TestCurvesFromBenchmarks: single benchmarks of one setup at several
// rates draw one curve, in rate order.
func TestCurvesFromBenchmarks(t *testing.T) {
	t.Parallel()
	var runs []*Run
	for _, rate := range []string{"20.0", "5.0", "10.0"} {
		one, err := os.ReadFile(vllmFile)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Parse(bytes.Replace(one, []byte(`"request_rate": 10.0`), []byte(`"request_rate": `+rate), 1), "openai-"+rate+"qps.json")
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	cs := curves(withStyles(runs))
	if len(cs) != 1 || cs[0].param != "request_rate" || len(cs[0].points) != 3 {
		t.Fatalf("curves %+v", cs)
	}
	for i, w := range []float64{5, 10, 20} {
		if cs[0].points[i].X != w {
			t.Errorf("point %d at %v, want %v", i, cs[0].points[i].X, w)
		}
	}
	if runs[0].Points[0].Value != "" {
		t.Error("curves changed a run")
	}
}

// TestParsePythonNonFinite: a result whose means Python wrote as bare NaN
// (a metric over no request) or Infinity (--burstiness inf) loads; the
// NaN metric is absent, as a null one is.
func TestParsePythonNonFinite(t *testing.T) {
	t.Parallel()
	r, err := Parse([]byte(`{"backend": "vllm", "model_id": "m", "request_rate": "inf", "burstiness": Infinity, "max_concurrency": 4,
		"duration": 2.0, "completed": 4, "mean_ttft_ms": 31.5, "mean_tpot_ms": NaN}`), "python.json")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Points[0]
	if v, ok := p.Metric("mean_ttft_ms"); !ok || v != 31.5 {
		t.Errorf("mean_ttft_ms %v %v, want 31.5", v, ok)
	}
	if v, ok := p.Metric("mean_tpot_ms"); ok {
		t.Errorf("mean_tpot_ms NaN read as %v", v)
	}
}

// TestFromRunFile: the typed run file (scenario.ReadRunFile) gives the
// run its JSON gives, so `servesim run --report` in process and
// `servesim report` of the saved file draw the same page.
func TestFromRunFile(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(rateSweepFile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := scenario.ReadRunFile(data)
	if err != nil {
		t.Fatal(err)
	}
	typed, err := FromRunFile(f)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := Parse(data, "x")
	if err != nil {
		t.Fatal(err)
	}
	if typed.Label != f.Scenario {
		t.Errorf("label %q, want the scenario's name %q", typed.Label, f.Scenario)
	}
	parsed.Label = typed.Label
	for _, r := range []*Run{typed, parsed} { // NaN != NaN to reflect.DeepEqual
		for i := range r.Points {
			for k, v := range r.Points[i].Metrics {
				if math.IsNaN(v) {
					r.Points[i].Metrics[k] = -1
				}
			}
		}
	}
	if !reflect.DeepEqual(typed, parsed) {
		t.Errorf("FromRunFile and Parse differ:\n%v\n%v", typed.Setup, parsed.Setup)
	}
}

// TestSLOLines: every latency chart of a metric the SLO bounds draws the
// bound: a rule on the percentile bars and on the latency-vs-rate
// charts, a vertical mark on the CDF; ITL, which no SLO bounds, gets
// none. The bench file's SLO is --goodput ttft:500 tpot:50 (README.md);
// the rate sweep's rate-slo.yaml's is TTFT 500 ms, TPOT 50 ms.
func TestSLOLines(t *testing.T) {
	t.Parallel()
	bench, err := Load(benchFile)
	if err != nil {
		t.Fatal(err)
	}
	sweep, err := Load(rateSweepFile)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"TTFT": 500, "TPOT": 50}
	lines := func(c *chart.Chart) (vs []float64) {
		for _, r := range c.Rules {
			if strings.Contains(r.Name, "SLO") {
				vs = append(vs, r.Y)
			}
		}
		for _, m := range c.Marks {
			vs = append(vs, m.X)
		}
		return vs
	}
	seen := map[string]int{}
	for _, c := range append(Charts(bench), Charts(sweep)...) {
		metric, _, _ := strings.Cut(c.Title, " ")
		metric, _, _ = strings.Cut(metric, ":")
		got := lines(c)
		latency := strings.Contains(c.Title, "distribution (CDF)") || strings.Contains(c.Title, "mean and percentiles") || strings.HasSuffix(c.Title, " vs request rate") && c.Y.Unit == "ms"
		if !latency {
			continue
		}
		if b, ok := want[metric]; ok {
			seen[metric]++
			if len(got) != 1 || got[0] != b {
				t.Errorf("%q: SLO lines at %v ms, want one at %v", c.Title, got, b)
			}
		} else if len(got) != 0 {
			t.Errorf("%q: SLO lines at %v ms, want none", c.Title, got)
		}
	}
	if seen["TTFT"] < 3 || seen["TPOT"] < 3 {
		t.Errorf("latency charts with an SLO line: %v, want the bars, the CDF and the sweep's chart of each", seen)
	}
}
