package calibrate

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// aiperfJSON writes an aggregated export in aiperf's layout
// (profile_export_aiperf.json: metrics as {unit, avg}, the load under
// input_config.loadgen).
func aiperfJSON(ttftMS, itlMS, latMS, tput float64, in, out, count int, loadgen string) string {
	return fmt.Sprintf(`{"schema_version": "1.3", "aiperf_version": "0.10.0",
  "request_throughput": {"unit": "requests/sec", "avg": 3.1},
  "request_latency": {"unit": "ms", "avg": %v, "p50": 1},
  "time_to_first_token": {"unit": "ms", "avg": %v, "p99": 1},
  "inter_token_latency": {"unit": "ms", "avg": %v},
  "output_token_throughput": {"unit": "tokens/sec", "avg": %v},
  "input_sequence_length": {"unit": "tokens", "avg": %d},
  "output_sequence_length": {"unit": "tokens", "avg": %d},
  "request_count": {"unit": "requests", "avg": %d},
  "input_config": {"endpoint": {"model_names": ["meta-llama/Llama-3.1-8B-Instruct"], "type": "chat", "streaming": true},
    "loadgen": %s}}`, latMS, ttftMS, itlMS, tput, in, out, count, loadgen)
}

// TestAIPerfExportReplay: a closed-loop run of fixed lengths, written as
// aiperf exports it and read back, re-simulates to the run's own means
// (the same clients from an idle engine: exactly, as the simulation is
// deterministic).
func TestAIPerfExportReplay(t *testing.T) {
	t.Parallel()
	eng, g := llama8BOnH100(t)
	res, err := sim.Run(sim.Config{Server: eng, Requests: 160, SummaryOnly: true,
		Workload: workload.Workload{Clients: 16, Lengths: workload.Fixed{Input: 2048, Output: 64}}})
	if err != nil {
		t.Fatal(err)
	}
	js := aiperfJSON(1000*res.TTFT().Mean(), 1000*res.TPOT().Mean(), 1000*res.E2E().Mean(), res.OutputThroughput, 2048, 64, 160,
		`{"concurrency": 16, "request_rate_mode": "concurrency_burst", "request_count": 160, "warmup_request_count": 32}`)
	if !IsAIPerfExport([]byte(js)) {
		t.Fatal("an aiperf export is not recognised")
	}
	pt, err := ReadAIPerfExport(strings.NewReader(js), "profile_export_aiperf.json")
	if err != nil {
		t.Fatal(err)
	}
	if pt.Concurrency != 16 || pt.NumPrompts != 160 || pt.Input != 2048 || pt.Output != 64 || pt.Model != "meta-llama/Llama-3.1-8B-Instruct" {
		t.Fatalf("point %+v", pt)
	}
	pt.GPU, pt.TP = "h100-sxm", 1
	pred, err := Simulator{}.Predict([]Point{pt}, cost.DefaultProfile(g))
	if err != nil {
		t.Fatal(err)
	}
	checkMeans(t, "", pred[0], res, 1e-9)
}

// TestReadAIPerfExport reads the input_config of each layout aiperf and
// genai-perf have written, with the arrivals each tool draws by default,
// and refuses what one point cannot be.
func TestReadAIPerfExport(t *testing.T) {
	t.Parallel()
	const stats = `"time_to_first_token": {"unit": "ms", "avg": 250}, "inter_token_latency": {"unit": "ms", "avg": 21},
		"input_sequence_length": {"unit": "tokens", "avg": 511.6}, "output_sequence_length": {"unit": "tokens", "avg": 128}`
	for _, tc := range []struct {
		name, config        string
		model               string
		conc, cap, requests int
		rate, burstiness    float64
	}{
		{"aiperf loadgen, closed loop", `{"endpoint": {"model_names": ["m/a"]}, "loadgen": {"concurrency": 8, "request_count": 80}}`, "m/a", 8, 0, 80, 0, 0},
		{"aiperf loadgen, default arrivals (Poisson)", `{"endpoint": {"model_names": ["m/a"]}, "loadgen": {"request_rate": 4, "concurrency": 16, "request_count": 90}}`, "m/a", 0, 16, 90, 4, 1},
		{"aiperf loadgen, constant mode", `{"loadgen": {"request_rate": 4, "request_rate_mode": "constant", "request_count": 90}}`, "", 0, 0, 90, 4, math.Inf(1)},
		{"aiperf loadgen, gamma arrival pattern", `{"loadgen": {"request_rate": 4, "arrival_pattern": "gamma", "arrival_smoothness": 0.5, "request_count": 90}}`, "", 0, 0, 90, 4, 0.5},
		{"aiperf loadgen, a sweep of one", `{"loadgen": {"concurrency": [12], "request_count": 90}}`, "", 12, 0, 90, 0, 0},
		{"aiperf schema 1.3 phases", `{"models": {"items": [{"name": "m/b"}]}, "phases": [{"name": "warmup", "type": "concurrency", "concurrency": 2, "requests": 4},
			{"name": "profiling", "type": "poisson", "rate": 2.5, "concurrency": 32, "requests": 70}]}`, "m/b", 0, 32, 70, 2.5, 1},
		{"aiperf schema 1.3, closed loop", `{"models": {"items": [{"name": "m/b"}]}, "phases": [{"name": "profiling", "type": "concurrency", "concurrency": 64, "requests": 640}]}`, "m/b", 64, 0, 640, 0, 0},
		{"genai-perf, stimulus request rate (constant)", `{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"request_rate": 6}, "measurement": {"mode": "request_count", "num": 60}}, "request_count": 60}`, "m/c", 0, 0, 60, 6, math.Inf(1)},
		{"genai-perf, stimulus concurrency", `{"model_names": ["m/c"], "perf_analyzer": {"stimulus": {"concurrency": 4}}, "request_count": 40}`, "m/c", 4, 0, 40, 0, 0},
		{"genai-perf before 2025-03", `{"model": ["gpt2_vllm"], "concurrency": 2, "request_rate": null, "request_count": 20}`, "gpt2_vllm", 2, 0, 20, 0, 0},
	} {
		p, err := ReadAIPerfExport(strings.NewReader(`{`+stats+`, "input_config": `+tc.config+`}`), "x.json")
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if p.IndependentGaps != (tc.rate > 0) {
			t.Errorf("%s: independent gaps %v, want them for an open loop (aiperf and genai-perf do not rescale)", tc.name, p.IndependentGaps)
		}
		if p.Model != tc.model || p.Concurrency != tc.conc || p.MaxConcurrency != tc.cap || p.NumPrompts != tc.requests || p.Rate != tc.rate || p.Burstiness != tc.burstiness ||
			p.Input != 512 || p.Output != 128 || p.Measured.TTFT != 0.25 {
			t.Errorf("%s: model %q c%d cap %d, %d requests, rate %v burstiness %v, %dx%d, TTFT %v; want %q c%d cap %d, %d, %v, %v, 512x128, 0.25",
				tc.name, p.Model, p.Concurrency, p.MaxConcurrency, p.NumPrompts, p.Rate, p.Burstiness, p.Input, p.Output, p.Measured.TTFT,
				tc.model, tc.conc, tc.cap, tc.requests, tc.rate, tc.burstiness)
		}
	}
	// The profiled count over the configured one; other units.
	p, err := ReadAIPerfExport(strings.NewReader(`{"time_to_first_token": {"unit": "ns", "avg": 2.5e8}, "inter_token_latency": {"unit": "us", "avg": 21000},
		"input_sequence_length": {"avg": 100}, "output_sequence_length": {"avg": 10}, "request_count": {"unit": "requests", "avg": 77},
		"input_config": {"loadgen": {"concurrency": 4, "request_count": 80}}}`), "units.json")
	if err != nil {
		t.Fatal(err)
	}
	if p.NumPrompts != 77 || math.Abs(p.Measured.TTFT/0.25-1) > 1e-12 || math.Abs(p.Measured.TPOT/0.021-1) > 1e-12 {
		t.Errorf("%d requests (want the 77 profiled), TTFT %v s, TPOT %v s", p.NumPrompts, p.Measured.TTFT, p.Measured.TPOT)
	}
	if IsAIPerfExport([]byte(`{"request_rate": "inf", "completed": 3, "mean_ttft_ms": 1}`)) {
		t.Error("a vllm bench serve result taken for an aiperf export")
	}
	nonStreaming := `{"request_latency": {"unit": "ms", "avg": 900}, "input_config": {"loadgen": {"concurrency": 4}}}`
	if !IsAIPerfExport([]byte(nonStreaming)) {
		t.Error("a non-streaming aiperf export is not recognised")
	}
	closed := `{"concurrency": 4}`
	for _, tc := range []struct{ js, want string }{
		{nonStreaming, "time_to_first_token has no avg"},
		{strings.Replace(aiperfJSON(10, 2, 50, 1, 100, 10, 40, closed), `"ms", "avg": 10`, `"fortnights", "avg": 10`, 1), `time_to_first_token unit "fortnights"`},
		{strings.Replace(aiperfJSON(10, 2, 50, 1, 100, 10, 40, closed), `"inter_token_latency": {"unit": "ms", "avg": 2}`, `"inter_token_latency": {"unit": "ms"}`, 1), "inter_token_latency has no avg"},
		{aiperfJSON(10, 2, 50, 1, 100, 0, 40, closed), "output_sequence_length avg 0"},
		{aiperfJSON(10, 2, 50, 1, 100, 10, 0, `{"concurrency": 4, "request_count": 0}`), "request_count 0"},
		{aiperfJSON(10, 2, 50, 1, 100, 10, 40, `{}`), "neither a concurrency nor a request rate"},
		{aiperfJSON(10, 2, 50, 1, 100, 10, 40, `{"concurrency": [8, 16]}`), "concurrency [8, 16]: a sweep of 2 runs"},
		{aiperfJSON(10, 2, 50, 1, 100, 10, 40, `{"request_rate": 2, "arrival_pattern": "gamma"}`), "gamma arrivals with smoothness 0"},
		{aiperfJSON(10, 2, 50, 1, 100, 10, 40, `{"request_rate": 2, "request_rate_mode": "user_centric"}`), `arrival "user_centric" with a request rate is not modelled`},
		{aiperfJSON(10, 2, 50, 1, 100, 10, 40, `{"concurrency": 2.5}`), "concurrency 2.5 must be a whole number"},
		{aiperfJSON(-10, 2, 50, 1, 100, 10, 40, closed), "time_to_first_token avg -10 ms must be a time > 0"},
		{`{"time_to_first_token": {"unit": "ms", "avg": 1}}`, "no input_config object"},
	} {
		if _, err := ReadAIPerfExport(strings.NewReader(tc.js), "bad.json"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want ErrInvalid naming %q", err, tc.want)
		}
	}
}

// FuzzReadAIPerfExport: any bytes give a point or an error matching
// ErrInvalid, never a panic, and a point's run builds or is refused.
func FuzzReadAIPerfExport(f *testing.F) {
	f.Add(aiperfJSON(10, 2, 50, 1, 100, 10, 40, `{"concurrency": 4}`))
	f.Add(aiperfJSON(10, 2, 50, 1, 100, 10, 1000000000, `{"request_rate": 1e9}`))
	f.Add(`{"time_to_first_token": {"unit": "s", "avg": 0.25}, "inter_token_latency": {"unit": "us", "avg": 21000},
		"input_sequence_length": {"avg": 5e9}, "output_sequence_length": {"avg": NaN},
		"input_config": {"request_rate": Infinity, "concurrency": -1}}`)
	f.Fuzz(func(t *testing.T, js string) {
		p, err := ReadAIPerfExport(strings.NewReader(js), "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		p.GPU, p.TP, p.Model = "h100-sxm", 1, "meta-llama/Llama-3.1-8B"
		if _, err := (Simulator{}).Config(p, mustProfile(t, "h100-sxm")); err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("config: %v does not match ErrInvalid", err)
		}
	})
}

// aiperfRecords writes a run's requests as aiperf's profile_export.jsonl:
// a warm-up record (left out), the profiled ones with their start on an
// epoch clock in ns, one without an output length and one failed record
// (both left out).
func aiperfRecords(res *sim.Result) string {
	var b strings.Builder
	const epoch = 1.7e18
	rec := func(phase string, start float64, in, out int, errJSON string) {
		fmt.Fprintf(&b, `{"metadata": {"benchmark_phase": %q, "request_start_ns": %.0f}, "metrics": {"input_sequence_length": {"value": %d, "unit": "tokens"}, "output_sequence_length": {"value": %d, "unit": "tokens"}}, "error": %s}`+"\n",
			phase, start, in, out, errJSON)
	}
	rec("warmup", epoch-5e9, 7, 7, "null")
	// aiperf writes a record when its request completes, not when it was
	// sent: here in reverse send order, so that only sorting by the start
	// recovers it.
	for i := len(res.Requests) - 1; i >= 0; i-- {
		r := &res.Requests[i]
		rec("profiling", epoch+1e9*r.Sent, r.Input, r.Output, "null")
	}
	fmt.Fprintf(&b, `{"metadata": {"benchmark_phase": "profiling", "request_start_ns": %.0f}, "metrics": {"input_sequence_length": {"value": 5}}, "error": null}`+"\n", epoch)
	fmt.Fprintf(&b, `{"metadata": {"benchmark_phase": "profiling", "request_start_ns": %.0f}, "metrics": {"error_isl": {"value": 3}}, "error": {"code": 500, "type": "InternalServerError"}}`+"\n", epoch)
	return b.String()
}

// TestAIPerfRecordsReplay: with its per-request records, written in
// completion order as aiperf writes them, an aiperf run of varied lengths
// re-simulates to its own means within 2%: a closed loop with each
// request's lengths in send order, an open loop replayed at its start
// times. (Not exactly: requests sent at one instant, as a closed loop's
// clients start, carry no order among themselves, so their lengths may go
// to other clients than in the run; and the epoch clock rounds the starts
// to 256 ns. Written in send order, they matched within 0.5%.) Without the records,
// from the mean lengths, the closed loop misses by more than 20% (its
// clients fall into lockstep).
func TestAIPerfRecordsReplay(t *testing.T) {
	t.Parallel()
	eng, g := llama8BOnH100(t)
	lengths := workload.Random{InputLen: 1024, OutputLen: 256, RangeRatio: 0.9}
	for _, tc := range []struct {
		name    string
		w       workload.Workload
		loadgen string
	}{
		{"closed loop", workload.Workload{Clients: 24, Lengths: lengths}, `{"concurrency": 24, "request_count": 300}`},
		{"open loop", workload.Workload{Arrivals: workload.Poisson{Rate: 30}, Lengths: lengths}, `{"request_rate": 30, "request_rate_mode": "poisson", "request_count": 300}`},
	} {
		res, err := sim.Run(sim.Config{Server: eng, Workload: tc.w, Requests: 300, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		js := aiperfJSON(1000*res.TTFT().Mean(), 1000*res.TPOT().Mean(), 1000*res.E2E().Mean(), res.OutputThroughput,
			int(math.Round(float64(res.TotalInput)/300)), int(math.Round(float64(res.TotalOutput)/300)), 300, tc.loadgen)
		means, err := ReadAIPerfExport(strings.NewReader(js), "profile_export_aiperf.json")
		if err != nil {
			t.Fatal(err)
		}
		pt, err := ReadAIPerfRecords(strings.NewReader(aiperfRecords(res)), "profile_export.jsonl", means)
		if err != nil {
			t.Fatal(err)
		}
		if len(pt.Lengths) != 300 || pt.NumPrompts != 300 || (pt.Concurrency == 0) != (len(pt.Arrivals) == 300) {
			t.Fatalf("%s: %d lengths, %d prompts, %d arrivals", tc.name, len(pt.Lengths), pt.NumPrompts, len(pt.Arrivals))
		}
		pt.GPU, pt.TP, means.GPU, means.TP = "h100-sxm", 1, "h100-sxm", 1
		pred, err := Simulator{Seed: 9}.Predict([]Point{pt, means}, cost.DefaultProfile(g))
		if err != nil {
			t.Fatal(err)
		}
		checkMeans(t, tc.name+" ", pred[0], res, 0.02)
		if d := math.Abs(pred[1].TTFT/res.TTFT().Mean() - 1); tc.name == "closed loop" && d < 0.2 {
			t.Errorf("closed loop from the means: TTFT within %.1f%%; the records should matter here", 100*d)
		}
	}
	for _, tc := range []struct{ js, want string }{
		{`{"metadata": {"benchmark_phase": "profiling", "request_start_ns": 1}, "metrics": {"input_sequence_length": {"value": 1.5}, "output_sequence_length": {"value": 3}}, "error": null}`, "record 1: input_sequence_length 1.5"},
		{`{"metadata": {"benchmark_phase": "profiling"}, "metrics": {"input_sequence_length": {"value": 1}, "output_sequence_length": {"value": 3}}, "error": null}`, "record 1: a completed request needs its request_start_ns"},
		{`{"metadata": {"benchmark_phase": "warmup", "request_start_ns": 1}, "metrics": {}, "error": null}`, "no completed request"},
		{"{\n", "record 1"},
	} {
		if _, err := ReadAIPerfRecords(strings.NewReader(tc.js), "bad.jsonl", Point{Concurrency: 2}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v, want ErrInvalid naming %q", err, tc.want)
		}
	}
}

// FuzzReadAIPerfRecords: any bytes give a point or an error matching
// ErrInvalid, never a panic; a point's replay starts at 0 and does not
// decrease.
func FuzzReadAIPerfRecords(f *testing.F) {
	f.Add(`{"metadata": {"benchmark_phase": "profiling", "request_start_ns": 1.7e18}, "metrics": {"input_sequence_length": {"value": 10}, "output_sequence_length": {"value": 3}}, "error": null}
{"metadata": {"benchmark_phase": "warmup", "request_start_ns": 1}, "metrics": {}, "error": null}`)
	f.Add(`{"metadata": {"request_start_ns": -1.7e308}, "metrics": {"input_sequence_length": {"value": 0}, "output_sequence_length": {"value": 1}}}
{"metadata": {"request_start_ns": 1.7e308}, "metrics": {"input_sequence_length": {"value": 0}, "output_sequence_length": {"value": 1}}}`)
	f.Fuzz(func(t *testing.T, js string) {
		p, err := ReadAIPerfRecords(strings.NewReader(js), "fuzz.jsonl", Point{Rate: 2})
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		if len(p.Arrivals) != len(p.Lengths) || p.NumPrompts != len(p.Lengths) {
			t.Fatalf("%d arrivals, %d lengths, %d prompts", len(p.Arrivals), len(p.Lengths), p.NumPrompts)
		}
		for i, a := range p.Arrivals {
			if (i == 0 && a != 0) || (i > 0 && !(a >= p.Arrivals[i-1])) || math.IsInf(a, 0) {
				t.Fatalf("arrival %d at %v in %v", i, a, p.Arrivals)
			}
		}
	})
}
