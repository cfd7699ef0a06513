package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/servesim/servesim/sim/metrics"
)

// The default bench prints vLLM's preamble and summary, then servesim's
// block, and nothing on stderr when stderr is not a terminal.
func TestBenchDefault(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "bench")
	if r.stderr != "" {
		t.Errorf("stderr = %q, want nothing", r.stderr)
	}
	for _, want := range []string{
		"Starting initial single prompt test run...\nSkipping endpoint ready check.\nStarting main benchmark run...\n",
		"Traffic request rate: inf\n",
		"Burstiness factor: 1.0 (Poisson process)\n",
		"Maximum request concurrency: None\n",
		"============ Serving Benchmark Result ============\n",
		"Successful requests:                     1000      \n",
		"Failed requests:                         0         \n",
		"Total input tokens:                      1024000   \n",
		"Total generated tokens:                  128000    \n",
		"---------------Time to First Token----------------\n",
		"-----Time per Output Token (excl. 1st token)------\n",
		"---------------Inter-token Latency----------------\n",
		"==================================================\n\n======== servesim (not in vLLM's output) =========\n",
		"Simulated server:                        vLLM-v1 engine: llama-3.1-8b on h100-sxm, TP 1\n",
		"Scheduler limits:                        1024 seqs, 8192 tokens/step\n",
		"Queue stability:                         n/a (request rate inf: a finite burst)\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	for _, re := range []string{
		`Benchmark duration \(s\): +\d+\.\d\d +\n`,
		`Request throughput \(req/s\): +\d+\.\d\d +\n`,
		`Output token throughput \(tok/s\): +\d+\.\d\d +\nPeak output token throughput \(tok/s\): +\d+\.00 +\nPeak concurrent requests: +1000\.00 +\nTotal token throughput \(tok/s\): +\d+\.\d\d +\n`,
		`Mean TTFT \(ms\): +\d+\.\d\d +\nMedian TTFT \(ms\): +\d+\.\d\d +\nP99 TTFT \(ms\): +\d+\.\d\d +\n`,
		`P99 ITL \(ms\): +\d+\.\d\d +\n==================================================\n`,
		`Mean KV-cache usage \(%\): +\d+\.\d\d`,
		`MBU \(%\): +\d+\.\d\d`,
	} {
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("summary does not match %s", re)
		}
	}
	for _, absent := range []string{"Request goodput", "SLO attainment", "End-to-end Latency", "Request rate configured"} {
		if strings.Contains(r.stdout, absent) {
			t.Errorf("summary shows %q without asking", absent)
		}
	}
}

func TestBenchSummaryOptions(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "bench", "--num-prompts", "200", "--max-concurrency", "8", "--request-rate", "inf",
		"--percentile-metrics", "ttft,e2el", "--metric-percentiles", "50,99.9", "--goodput", "ttft:800", "tpot:50")
	for _, want := range []string{
		"Traffic request rate: inf\n", "Maximum request concurrency: 8\n", "Maximum request concurrency:             8 ",
		"Request goodput (req/s):", "P50 TTFT (ms):", "P99.9 TTFT (ms):", "----------------End-to-end Latency----------------\n",
		"P99.9 E2EL (ms):", "SLO attainment (%):", "SLO target (%):                          99.00 PASS",
		"Goodput per GPU (tok/s):", "Mean client queue time (ms):",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q", want)
		}
	}
	for _, absent := range []string{"Request rate configured", "Inter-token Latency", "TPOT (ms)"} {
		if strings.Contains(r.stdout, absent) {
			t.Errorf("summary shows %q", absent)
		}
	}
}

// benchJSON runs bench with --save-result and returns the file's bytes.
func benchJSON(t *testing.T, env []string, args ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	args = append([]string{"bench", "--save-result", "--result-dir", dir, "--result-filename", "r.json"}, args...)
	r := servesimIn(t, "", env, args...)
	if r.code != 0 {
		t.Fatalf("servesim %s: exit %d: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "r.json"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeJSON(t *testing.T, data []byte) map[string]any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBenchJSONFields(t *testing.T) {
	t.Parallel()
	m := decodeJSON(t, benchJSON(t, nil, "--num-prompts", "100", "--seed", "4", "--request-rate", "10"))
	isInt := func(v any) bool {
		n, ok := v.(json.Number)
		_, err := n.Int64()
		return ok && err == nil
	}
	isNum := func(v any) bool { _, ok := v.(json.Number); return ok }
	isFloat := func(v any) bool { n, ok := v.(json.Number); return ok && strings.ContainsAny(string(n), ".e") }
	isStr := func(v any) bool { _, ok := v.(string); return ok }
	isNull := func(v any) bool { return v == nil }
	isList := func(v any) bool { l, ok := v.([]any); return ok && len(l) == 100 }
	checks := []struct {
		key  string
		ok   func(any) bool
		kind string
	}{
		{"date", isStr, "string"}, {"backend", isStr, "string"}, {"model_id", isStr, "string"}, {"tokenizer_id", isStr, "string"},
		{"num_prompts", isInt, "int"}, {"request_rate", isFloat, "float"}, {"burstiness", isFloat, "float"},
		{"max_concurrency", isNull, "null"}, {"label", isNull, "null"},
		{"duration", isFloat, "float"}, {"completed", isInt, "int"}, {"failed", isInt, "int"},
		{"total_input_tokens", isInt, "int"}, {"total_output_tokens", isInt, "int"},
		{"request_throughput", isFloat, "float"}, {"request_goodput", isNull, "null (no --goodput)"},
		{"output_throughput", isFloat, "float"}, {"total_token_throughput", isFloat, "float"},
		{"latencies", isList, "list of 100"}, {"queue_times", isList, "list of 100"},
		{"max_output_tokens_per_s", isFloat, "float"}, {"max_concurrent_requests", isInt, "int"}, {"rtfx", isFloat, "float"},
		{"mean_ttft_ms", isNum, "number"}, {"median_ttft_ms", isNum, "number"}, {"std_ttft_ms", isNum, "number"}, {"p99_ttft_ms", isNum, "number"},
		{"mean_tpot_ms", isNum, "number"}, {"p99_tpot_ms", isNum, "number"}, {"mean_itl_ms", isNum, "number"}, {"p99_itl_ms", isNum, "number"},
	}
	for _, c := range checks {
		v, ok := m[c.key]
		if !ok {
			t.Errorf("no %q", c.key)
			continue
		}
		if !c.ok(v) {
			t.Errorf("%s = %#v, want %s", c.key, v, c.kind)
		}
	}
	if m["backend"] != "openai" || m["model_id"] != "llama-3.1-8b" || m["request_rate"] != json.Number("10.0") {
		t.Errorf("backend, model_id, request_rate = %v, %v, %v", m["backend"], m["model_id"], m["request_rate"])
	}
	if _, ok := m["mean_e2el_ms"]; ok {
		t.Error("E2EL statistics written without --percentile-metrics e2el (vLLM writes none)")
	}
	x, _ := m["servesim"].(map[string]any)
	for _, key := range []string{"seed", "gpu", "tensor_parallel_size", "slo_attainment", "goodput_per_gpu", "mbu", "preemptions", "stability", "max_num_seqs"} {
		if _, ok := x[key]; !ok {
			t.Errorf("servesim.%s missing", key)
		}
		if _, ok := m[key]; ok {
			t.Errorf("servesim's %s at the top level, beside vLLM's keys", key)
		}
	}
	if x["gpu"] != "h100-sxm" || x["seed"] != json.Number("4") || x["max_num_seqs"] != json.Number("1024") {
		t.Errorf("servesim gpu, seed, max_num_seqs = %v, %v, %v", x["gpu"], x["seed"], x["max_num_seqs"])
	}
	if _, ok := m["input_lens"]; ok {
		t.Error("per-request lists written without --save-detailed")
	}
	if !regexp.MustCompile(`^\d{8}-\d{6}$`).MatchString(m["date"].(string)) {
		t.Errorf("date %q is not vLLM's %%Y%%m%%d-%%H%%M%%S", m["date"])
	}
}

func TestBenchJSONVariants(t *testing.T) {
	t.Parallel()
	m := decodeJSON(t, benchJSON(t, nil, "--num-prompts", "30", "--request-rate", "inf", "--max-concurrency", "4",
		"--goodput", "ttft:800 tpot:50", "--save-detailed", "--num-warmups", "5", "--label", "lab", "--metadata", "gpu=h100", "run = 7"))
	if m["request_rate"] != "inf" || m["max_concurrency"] != json.Number("4") || m["label"] != "lab" || m["gpu"] != "h100" || m["run"] != "7" {
		t.Errorf("request_rate, max_concurrency, label, gpu, run = %#v, %#v, %#v, %#v, %#v", m["request_rate"], m["max_concurrency"], m["label"], m["gpu"], m["run"])
	}
	if _, ok := m["request_goodput"].(json.Number); !ok {
		t.Errorf("request_goodput = %#v, want a number with --goodput", m["request_goodput"])
	}
	for _, key := range []string{"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "queue_times", "generated_texts", "errors"} {
		a, ok := m[key].([]any)
		if !ok || len(a) != 30 {
			t.Errorf("%s = %T of %d, want 30 values (measured requests only)", key, m[key], len(a))
		}
	}
	x := m["servesim"].(map[string]any)
	for _, key := range []string{"tpots", "server_queue_times", "arrival_times", "statuses"} {
		if a, ok := x[key].([]any); !ok || len(a) != 30 {
			t.Errorf("servesim.%s = %T, want 30 values", key, x[key])
		}
	}
	// vLLM's itls: Output-1 gaps per request summing to latency - ttft.
	itls, ttfts, lat, outs := m["itls"].([]any), m["ttfts"].([]any), m["latencies"].([]any), m["output_lens"].([]any)
	for i := range itls {
		gaps := itls[i].([]any)
		o, _ := outs[i].(json.Number).Int64()
		var sum float64
		for _, g := range gaps {
			v, _ := g.(json.Number).Float64()
			sum += v
		}
		l, _ := lat[i].(json.Number).Float64()
		f, _ := ttfts[i].(json.Number).Float64()
		if int64(len(gaps)) != o-1 || math.Abs(sum-(l-f)) > 1e-9 {
			t.Errorf("request %d: %d gaps summing to %v; want %d summing to latency - ttft = %v", i, len(gaps), sum, o-1, l-f)
		}
	}
	for _, key := range []string{"mean_client_queue_time_ms", "p99_client_queue_time_ms"} {
		if _, ok := m[key]; ok {
			t.Errorf("%s written without --percentile-metrics client_queue_time", key)
		}
	}
}

// --append-result adds one JSON object a line, as vLLM.
func TestBenchAppendResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for range 2 {
		mustRun(t, "bench", "--num-prompts", "5", "--append-result", "--result-dir", dir, "--result-filename", "runs.jsonl")
	}
	data, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2 objects on 2 lines", len(lines))
	}
	for _, l := range lines {
		decodeJSON(t, []byte(l))
	}
}

// The same flags and seed give byte-identical JSON apart from the date,
// whatever the parallelism; another seed gives another result.
func TestBenchSameSeedSameJSON(t *testing.T) {
	t.Parallel()
	args := []string{"--num-prompts", "300", "--seed", "11", "--save-detailed", "--goodput", "ttft:100", "--burstiness", "0.5"}
	a := stripDate(t, benchJSON(t, []string{"GOMAXPROCS=1"}, args...))
	b := stripDate(t, benchJSON(t, []string{"GOMAXPROCS=2"}, args...))
	if !bytes.Equal(a, b) {
		t.Errorf("same seed, different JSON:\n%s\n%s", a, b)
	}
	c := stripDate(t, benchJSON(t, nil, append(args, "--seed", "12")...))
	if bytes.Equal(a, c) {
		t.Error("seeds 11 and 12 give the same JSON")
	}
}

var dateRE = regexp.MustCompile(`^\{"date":"\d{8}-\d{6}",`)

func stripDate(t *testing.T, data []byte) []byte {
	t.Helper()
	if !dateRE.Match(data) {
		t.Fatalf("JSON does not start with the date: %.80s", data)
	}
	return dateRE.ReplaceAll(data, []byte("{"))
}

// The three ways to write vLLM's --goodput give one SLO.
func TestBenchGoodputForms(t *testing.T) {
	t.Parallel()
	forms := [][]string{
		{"--goodput", "ttft:800", "tpot:50", "e2el:4000"},
		{"--goodput", "ttft:800 tpot:50 e2el:4000"},
		{"--goodput", "ttft:800", "--goodput", "tpot:50", "--goodput=e2el:4000"},
	}
	var want any
	for i, f := range forms {
		m := decodeJSON(t, benchJSON(t, nil, append([]string{"--num-prompts", "20"}, f...)...))
		got := []any{m["goodput"], m["slo"]}
		if i == 0 {
			want = got
			continue
		}
		if g, w := mustJSON(t, got), mustJSON(t, want); g != w {
			t.Errorf("form %v: goodput %s, want %s", f, g, w)
		}
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestBenchEngineFlags(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args    []string
		chunked bool
	}{
		{nil, true},
		{[]string{"--no-enable-chunked-prefill"}, false},
		{[]string{"--no-enable-chunked-prefill", "--enable-chunked-prefill"}, true},
		{[]string{"--enable-chunked-prefill=false"}, false},
	}
	for _, tt := range tests {
		m := decodeJSON(t, benchJSON(t, nil, append([]string{"--num-prompts", "20", "--random-input-len", "256"}, tt.args...)...))
		if x := m["servesim"].(map[string]any); x["enable_chunked_prefill"] != tt.chunked {
			t.Errorf("%v: enable_chunked_prefill = %v, want %v", tt.args, x["enable_chunked_prefill"], tt.chunked)
		}
	}
	m := decodeJSON(t, benchJSON(t, nil, "--num-prompts", "20", "--model", "qwen2.5-7b", "--gpu", "a100-80gb",
		"-tp", "2", "--max-num-seqs", "64", "--kv-cache-memory", "4GiB", "--block-size", "32", "--replicas", "2"))
	x := m["servesim"].(map[string]any)
	for key, want := range map[string]any{"gpu": "a100-80gb", "tensor_parallel_size": json.Number("2"),
		"max_num_seqs": json.Number("64"), "kv_cache_memory": json.Number("4294967296"), "block_size": json.Number("32"),
		"data_parallel_size": json.Number("1"), "replicas": json.Number("2"), "gpus": json.Number("4"), "max_num_batched_tokens": json.Number("2048")} {
		if x[key] != want {
			t.Errorf("%s = %#v, want %#v", key, x[key], want)
		}
	}
	if m["model_id"] != "qwen2.5-7b" {
		t.Errorf("model_id = %v", m["model_id"])
	}
	// vllm serve spellings: -dp, human-readable counts, precisions.
	m = decodeJSON(t, benchJSON(t, nil, "--num-prompts", "20", "-dp", "2", "--max-num-batched-tokens", "16k", "--max-model-len", "8K",
		"--kv-cache-dtype", "fp8", "-q", "fp8", "--gpu-memory-utilization", "0.8", "--num-gpu-blocks-override", "1000"))
	x = m["servesim"].(map[string]any)
	for key, want := range map[string]any{"data_parallel_size": json.Number("2"), "max_num_batched_tokens": json.Number("16000"),
		"max_model_len": json.Number("8192"), "kv_bytes_per_element": json.Number("1"), "weight_precision": "fp8",
		"gpu_memory_utilization": json.Number("0.8"), "kv_cache_tokens": json.Number("32000")} { // 1000 blocks of 16 on each of 2 replicas
		if x[key] != want {
			t.Errorf("%s = %#v, want %#v", key, x[key], want)
		}
	}
}

func TestBenchFCFS(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "bench", "--server", "fcfs", "--service-time", "mix:20ms@0.8,180ms@0.2", "--request-rate", "4",
		"--num-prompts", "2000", "--goodput", "e2el:250", "--slo-target", "0.95", "--percentile-metrics", "e2el")
	for _, want := range []string{"Simulated server:                        FCFS(1), service mix:20ms@0.8,180ms@0.2", "SLO attainment (%):", "P99 E2EL (ms):"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.stdout)
		}
	}
	mustRun(t, "bench", "--server", "fcfs", "--num-prompts", "50", "--servers", "2") // service from the cost model
}

func TestBenchTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.csv")
	if err := os.WriteFile(trace, []byte("timestamp,input_tokens,output_tokens\n0,100,10\n0.2,300,20\n0.5,50,5\n1.0,800,40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mustRun(t, "bench", "--dataset-name", "trace", "--dataset-path", trace, "--num-prompts", "4", "--trace-timestamps")
	if !strings.Contains(r.stdout, "Total input tokens:                      1250") {
		t.Errorf("trace replay in order should send 1250 input tokens:\n%s", r.stdout)
	}
	mustRun(t, "bench", "--dataset-name", "trace", "--dataset-path", trace, "--num-prompts", "50")
}

// TestDefaultResultName: --save-result without --result-filename writes
// vLLM's file name into --result-dir (vllmbench's TestDefaultResultName
// tests the name itself).
func TestDefaultResultName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustRun(t, "bench", "--num-prompts", "10", "--save-result", "--result-dir", dir, "--max-concurrency", "8")
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if want := regexp.MustCompile(`^openai-infqps-concurrency8-llama-3\.1-8b-\d{8}-\d{6}\.json$`); len(files) != 1 || !want.MatchString(filepath.Base(files[0])) {
		t.Errorf("wrote %v, want one file matching %s", files, want)
	}
}

// TestBenchPercentilesFromLists: the saved statistics of TTFT, TPOT and
// E2EL are numpy's linear percentiles of the saved per-request lists, to
// the bit, with warm-up requests left out of both. The percentiles come
// from the records by selection (metrics.FromRecords): with few
// percentiles every answer is selected, with many the sample sorts a copy
// once it has selected four.
func TestBenchPercentilesFromLists(t *testing.T) {
	t.Parallel()
	for _, ps := range [][]float64{{25, 99}, {1, 10, 25, 50, 75, 90, 99, 99.9}} {
		var list []string
		for _, p := range ps {
			list = append(list, metrics.PercentileKey(p))
		}
		m := decodeJSON(t, benchJSON(t, nil, "--num-prompts", "600", "--seed", "3", "--request-rate", "40", "--max-concurrency", "48",
			"--num-warmups", "20", "--random-output-len", "16", "--save-detailed", "--percentile-metrics", "ttft,tpot,e2el",
			"--metric-percentiles", strings.Join(list, ",")))
		floats := func(v any) []float64 {
			l, _ := v.([]any)
			out := make([]float64, len(l))
			for i, x := range l {
				out[i], _ = x.(json.Number).Float64()
			}
			return out
		}
		lists := map[string][]float64{"ttft": floats(m["ttfts"]), "e2el": floats(m["latencies"]),
			"tpot": floats(m["servesim"].(map[string]any)["tpots"])}
		for key, xs := range lists {
			if len(xs) != 600 {
				t.Fatalf("%s: %d values saved, want 600 (measured requests)", key, len(xs))
			}
			slices.Sort(xs)
			for _, p := range append([]float64{50}, ps...) {
				h := float64(len(xs)-1) * p / 100
				lo := math.Floor(h)
				want := xs[int(lo)]
				if h != lo {
					want += (h - lo) * (xs[int(lo)+1] - want)
				}
				name := "p" + metrics.PercentileKey(p) + "_" + key + "_ms"
				if p == 50 {
					name = "median_" + key + "_ms"
				}
				got, err := m[name].(json.Number).Float64()
				if err != nil || got != 1000*want {
					t.Errorf("percentiles %v: %s = %v, want %v (1000 × numpy's linear percentile of the saved list)", list, name, m[name], 1000*want)
				}
			}
		}
	}
}
