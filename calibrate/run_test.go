package calibrate_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/servesim/servesim/scenario"
)

// resultJSON is a vLLM result file (vllm bench serve --save-result) of an
// open loop of 200 requests of 1024 in and 128 out at 8 req/s.
const resultJSON = `{"backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": 200,
	"request_rate": 8, "burstiness": 1.0, "max_concurrency": null, "duration": 25.1, "completed": 200,
	"total_input_tokens": 204800, "total_output_tokens": 25600, "request_throughput": 7.97,
	"output_throughput": 1020, "mean_ttft_ms": 31.5, "median_ttft_ms": 30, "mean_tpot_ms": 7.9, "mean_itl_ms": 7.9, "mean_e2el_ms": 1035}`

// serve is vllm serve's engine with the defaults for every GPU's
// knobs (max_num_seqs 0: the GPU's default).
func serve() scenario.Server {
	s := scenario.Default().Server
	s.MaxNumSeqs = 0
	return s
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestRunCSV: Run fits a profile to CSV rows, its report shows every run
// before and after, and the profile written loads with its provenance.
func TestRunCSV(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "h100.yaml")
	rep, err := calibrate.Run(calibrate.Config{CSV: shareddata.Path(t, "aiconfigurator_vllm_silicon.csv"), Model: "Qwen/Qwen3-32B", GPU: "h100-sxm",
		TP: 8, Precision: "bf16", ModelDir: shareddata.Path(t, "model_configs"), MaxEvaluations: 4, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"calibrate: 30 runs on h100-sxm (0 skipped)", "## before", "## after", "| tpot |"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if len(rep.Before) != len(rep.After) || len(rep.Before) == 0 {
		t.Errorf("%d residuals before, %d after", len(rep.Before), len(rep.After))
	}
	prof, err := cost.LoadProfile(out)
	if err != nil {
		t.Fatalf("the written profile does not load: %v", err)
	}
	if prof.GPU != "h100-sxm" || prof.Provenance.FittedOn != "30 runs on h100-sxm" || prof.Provenance.Source != "servesim calibrate on aiconfigurator_vllm_silicon.csv" {
		t.Errorf("profile GPU %q, provenance %+v", prof.GPU, prof.Provenance)
	}
}

// TestRunInputs: a result file takes its deployment from the Config (an
// unknown model is skipped, naming its model_id, unless ModelDir holds
// it), an LLMServingSim run directory its GPU from meta.json, an aiperf
// export its clients; the audit fits nothing and writes nothing.
func TestRunInputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := writeFile(t, dir, "run.json", resultJSON)
	custom := writeFile(t, dir, "custom.json", strings.ReplaceAll(resultJSON, "meta-llama/Llama-3.1-8B-Instruct", "acme/Custom-8B"))
	configs := t.TempDir()
	qwen3, err := os.ReadFile(filepath.Join(shareddata.Path(t, "model_configs"), "Qwen--Qwen3-8B.json"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, configs, "acme--custom-8b.json", string(qwen3))
	ai := t.TempDir()
	writeFile(t, ai, "profile_export_aiperf.json", `{"time_to_first_token": {"unit": "ms", "avg": 95.2}, "inter_token_latency": {"unit": "ms", "avg": 9.1},
		"request_latency": {"unit": "ms", "avg": 1250.3}, "input_sequence_length": {"unit": "tokens", "avg": 1024},
		"output_sequence_length": {"unit": "tokens", "avg": 128}, "request_count": {"unit": "requests", "avg": 80},
		"input_config": {"endpoint": {"model_names": ["meta-llama/Llama-3.1-8B-Instruct"]}, "loadgen": {"concurrency": 8, "request_count": 80}}}`)
	lss := filepath.Join("testdata", "llmservingsim", "rtx4090-llama-3.1-8b")
	for _, tt := range []struct {
		name string
		c    calibrate.Config
		want []string // in the report
		warn string   // in what Warn heard
	}{
		{"result file", calibrate.Config{Inputs: []string{run}, GPU: "h100-sxm", TP: 1}, []string{"calibrate: 1 runs on h100-sxm (0 skipped)", "run.json"}, ""},
		{"unknown model", calibrate.Config{Inputs: []string{run, custom}, GPU: "h100-sxm", TP: 1}, []string{"calibrate: 1 runs on h100-sxm (1 skipped)"},
			"skipping " + custom + ": model_id acme/Custom-8B: no model directory"},
		{"model configs", calibrate.Config{Inputs: []string{custom}, GPU: "h100-sxm", TP: 1, ModelDir: configs}, []string{"calibrate: 1 runs on h100-sxm (0 skipped)"}, ""},
		{"llmservingsim", calibrate.Config{Inputs: []string{lss}}, []string{"calibrate: 1 runs on rtx4090", "tp1 replay of 300 requests"}, ""},
		{"aiperf directory", calibrate.Config{Inputs: []string{ai}, GPU: "h100-sxm", TP: 1}, []string{"calibrate: 1 runs on h100-sxm", "tp1 1024x128 c8 | ttft | 95.2 ms"}, ""},
		{"audit flagged", calibrate.Config{Audit: true, CSV: shareddata.Path(t, "aiconfigurator_vllm_silicon.csv"), Model: "Qwen/Qwen3-32B", GPU: "h100-sxm",
			ModelDir: shareddata.Path(t, "model_configs")}, []string{"audit: 93 runs", "| 93 | 2 | 2 | 0 |", "## flagged runs", "fp8 tp2 4000x1000 c48", "prefix-cache hits"}, ""},
		{"audit", calibrate.Config{Audit: true, CSV: shareddata.Path(t, "public_serving_runs.csv"), ModelDir: shareddata.Path(t, "model_configs")},
			[]string{"audit: 34 runs", "| 34 | 0 | 0 | 0 |", "no run needs more than its GPU can do"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var warned []string
			tt.c.MaxEvaluations, tt.c.Server = 2, serve()
			tt.c.Out = filepath.Join(t.TempDir(), "p.yaml")
			tt.c.Warn = func(msg string) { warned = append(warned, msg) }
			rep, err := calibrate.Run(tt.c)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := rep.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			for _, want := range tt.want {
				if !strings.Contains(b.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, b.String())
				}
			}
			if w := strings.Join(warned, "\n"); !strings.Contains(w, tt.warn) {
				t.Errorf("warnings %q lack %q", w, tt.warn)
			}
			if _, err := os.Stat(tt.c.Out); (err == nil) == tt.c.Audit {
				t.Errorf("audit %v: profile written: %v", tt.c.Audit, err == nil)
			}
		})
	}
}

// TestRunErrors: every bad Config is an error naming what to give, and
// writes no profile; an engine setting of the result files is an
// EngineError naming the run, a bad number a field error.
func TestRunErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	csv := shareddata.Path(t, "aiconfigurator_vllm_silicon.csv")
	run := writeFile(t, dir, "run.json", resultJSON)
	lss := filepath.Join("testdata", "llmservingsim", "rtx4090-llama-3.1-8b")
	out := filepath.Join(dir, "p.yaml")
	for _, tt := range []struct {
		c    calibrate.Config
		want string
	}{
		{calibrate.Config{}, "no runs to fit"},
		{calibrate.Config{CSV: csv, Model: "nope/none"}, "no row of"},
		{calibrate.Config{CSV: csv, Model: "meta-llama/Llama-3.1-70B"}, "a profile describes one GPU"}, // H100 and B200 rows
		{calibrate.Config{Inputs: []string{run}}, "give --gpu and --tensor-parallel-size"},
		{calibrate.Config{CSV: filepath.Join(dir, "missing.csv")}, "--csv:"},
		{calibrate.Config{Inputs: []string{t.TempDir()}}, "not a run directory"},
		{calibrate.Config{Inputs: []string{lss}, GPU: "h100-sxm"}, "measured on rtx4090, not --gpu h100-sxm"},
		{calibrate.Config{CSV: csv, ServerSet: []string{"max-num-seqs"}}, "--max-num-seqs describes the deployment of result files"},
		{calibrate.Config{Inputs: []string{run}, GPU: "h100-sxm", TP: 1, Start: filepath.Join(dir, "none.yaml")}, "--start:"},
	} {
		tt.c.Out, tt.c.Server = out, serve()
		if _, err := calibrate.Run(tt.c); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Run(%+v): %v, want %q", tt.c, err, tt.want)
		}
	}
	engine := calibrate.Config{Inputs: []string{run}, GPU: "h100-sxm", TP: 1, Out: out, Server: serve()}
	engine.Server.MaxNumSeqs = -1
	var ee *calibrate.EngineError
	if _, err := calibrate.Run(engine); !errors.As(err, &ee) || ee.ID != run || fielderr.Of(err) == nil || fielderr.Of(err).Field != "server.max_num_seqs" {
		t.Errorf("max_num_seqs -1: %v, want an EngineError of %s at server.max_num_seqs", err, run)
	}
	engine.Server.MaxNumSeqs, engine.Server.DataParallelSize = 0, 2
	if _, err := calibrate.Run(engine); err == nil || !strings.Contains(err.Error(), "calibrate re-simulates one engine") {
		t.Errorf("a dense model's data parallelism: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed Run wrote its profile")
	}
	for _, c := range []calibrate.Config{{TP: -1}, {MaxEvaluations: -1}, {Workers: -1}, {Joint: true, JointNoise: -0.1},
		{Joint: true, JointNoise: 11}, {Joint: true, JointNoise: math.NaN()}, {JointNoise: 0.2}} {
		if fe := fielderr.Of(c.Validate()); fe == nil {
			t.Errorf("Validate(%+v) = %v, want a field error", c, c.Validate())
		}
	}
	if err := (calibrate.Config{Joint: true, JointNoise: 0.2}).Validate(); err != nil {
		t.Errorf("a joint fit's noise of 0.2: %v", err)
	}
}

// TestReportUnchanged: equal before and after tables say why: knobs that
// moved without touching these runs, or a search too short to move any.
func TestReportUnchanged(t *testing.T) {
	t.Parallel()
	gpu, err := cost.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	start := cost.DefaultProfile(gpu)
	moved := start
	calibrate.Frontend.Set(&moved, 2*calibrate.Frontend.Get(start)+1e-3)
	same := []calibrate.Residual{{Metric: calibrate.TPOT, Measured: 0.01, Predicted: 0.012}}
	other := []calibrate.Residual{{Metric: calibrate.TPOT, Measured: 0.01, Predicted: 0.011}}
	for _, tt := range []struct {
		name string
		r    calibrate.Report
		want string // "": none
	}{
		{"fit moved the runs", calibrate.Report{Before: same, After: other, Start: start, Profile: moved}, ""},
		{"knob moved, runs did not", calibrate.Report{Before: same, After: same, Start: start, Profile: moved}, "the fit moved frontend_overhead_s, and these runs' predictions do not depend on it"},
		{"too few evaluations", calibrate.Report{Before: same, After: same, Start: start, Profile: start, MaxEvaluations: 2}, "within 2 loss evaluations per stage"},
		{"already the best", calibrate.Report{Before: same, After: same, Start: start, Profile: start}, "already the best"},
	} {
		got := tt.r.Unchanged()
		if (tt.want == "") != (got == "") || !strings.Contains(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
		var b bytes.Buffer
		if err := tt.r.WriteText(&b); err != nil || strings.Contains(b.String(), "before and after are equal") != (tt.want != "") {
			t.Errorf("%s: WriteText %v:\n%s", tt.name, err, b.String())
		}
	}
}
