package calibrate

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// checkMeans fails t when the re-simulated mean TTFT, TPOT or E2E of pred
// is further than tol (relative) from the mean of the run res; label
// prefixes each message.
func checkMeans(t *testing.T, label string, pred Metrics, res *sim.Result, tol float64) {
	t.Helper()
	for _, m := range []struct {
		name      string
		got, want float64
	}{{"ttft", pred.TTFT, res.TTFT().Mean()}, {"tpot", pred.TPOT, res.TPOT().Mean()}, {"e2e", pred.E2E, res.E2E().Mean()}} {
		if math.Abs(m.got/m.want-1) > tol {
			t.Errorf("%s%s: re-simulated %.9g, the run %.9g", label, m.name, m.got, m.want)
		}
	}
}

// llama8BOnH100 returns the engine of Llama-3.1-8B on one H100 with vLLM's
// scheduler defaults there, the setup the replay tests run, and the GPU.
func llama8BOnH100(t *testing.T) (batching.Config, cost.GPUSpec) {
	t.Helper()
	g, err := cost.GPU("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	m, err := cost.Model("llama-3.1-8b")
	if err != nil {
		t.Fatal(err)
	}
	eng := batching.Defaults(m, g)
	eng.MaxNumSeqs, eng.MaxNumBatchedTokens = VLLMSchedulerDefaults(g)
	return eng, g
}

// savedRun runs w on Llama-3.1-8B on one H100 under its catalog profile
// and returns the run and its result JSON as `vllm bench serve
// --save-result --save-detailed` writes it (max_concurrency and
// start_times as vLLM records them; startOffset shifts the start times,
// which vLLM takes from a monotonic clock with an arbitrary origin).
func savedRun(t *testing.T, w workload.Workload, n int, maxConcurrency any, startOffset float64) (*sim.Result, string) {
	t.Helper()
	eng, _ := llama8BOnH100(t)
	res, err := sim.Run(sim.Config{Server: eng, Workload: w, Requests: n, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	doc := map[string]any{"model_id": "meta-llama/Llama-3.1-8B", "num_prompts": n, "request_rate": "inf", "burstiness": 1.0,
		"max_concurrency": maxConcurrency, "completed": res.Completed, "total_input_tokens": res.TotalInput,
		"total_output_tokens": res.TotalOutput, "output_throughput": res.OutputThroughput,
		"mean_ttft_ms": 1000 * res.TTFT().Mean(), "mean_tpot_ms": 1000 * res.TPOT().Mean(),
		"mean_itl_ms": 1000 * res.ITL().Mean(), "mean_e2el_ms": 1000 * res.E2E().Mean()}
	if g, ok := w.Arrivals.(workload.Gamma); ok {
		doc["request_rate"], doc["burstiness"] = g.Rate, g.Burstiness
	}
	var in, out []int
	var starts []float64
	var errs []string
	for _, r := range res.Requests {
		in, out, starts, errs = append(in, r.Input), append(out, r.Output), append(starts, startOffset+r.Sent), append(errs, "")
	}
	doc["input_lens"], doc["output_lens"], doc["start_times"], doc["errors"] = in, out, starts, errs
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// TestSaveDetailedReplay checks that a --save-detailed result re-simulated
// under the profile that produced it reproduces it: an open loop replayed
// at its start times with its lengths, and a closed loop with its lengths
// in send order, match the run's mean TTFT, TPOT and E2E within 0.5%. (Not
// exactly: the start times sit on a clock 12345.5 s from the run's origin,
// as vLLM's monotonic clock does, and subtracting the first one rounds each
// by about 1e-12 s, which can move a request of this bursty stream into a
// neighbouring step; with the origin at 0 the replay is exact.) The same
// file read without its lists (lengths from the means, the arrivals drawn
// again) misses by more than 20%: the per-request lists are what make a
// calibration see the run that was measured.
func TestSaveDetailedReplay(t *testing.T) {
	t.Parallel()
	lengths := workload.Random{InputLen: 1024, OutputLen: 256, RangeRatio: 0.9}
	cases := []struct {
		name string
		w    workload.Workload
		conc any
	}{
		{"open loop, bursty", workload.Workload{Arrivals: workload.Gamma{Rate: 40, Burstiness: 0.25}, Lengths: lengths}, nil},
		{"closed loop", workload.Workload{Clients: 24, Lengths: lengths}, 24},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, js := savedRun(t, tc.w, 300, tc.conc, 12345.5)
			pt, err := ReadVLLMResult(strings.NewReader(js), "run.json")
			if err != nil {
				t.Fatal(err)
			}
			if len(pt.Lengths) != 300 || (tc.conc == nil) != (len(pt.Arrivals) == 300) {
				t.Fatalf("%d lengths, %d arrivals: want 300 lengths and arrivals only for the open loop", len(pt.Lengths), len(pt.Arrivals))
			}
			pt.GPU, pt.TP = "h100-sxm", 1
			prof := mustProfile(t, "h100-sxm")
			pred, err := Simulator{Seed: 99}.Predict([]Point{pt}, prof)
			if err != nil {
				t.Fatal(err)
			}
			checkMeans(t, "", pred[0], res, 0.005)
			// Without the lists: the means and fresh arrivals.
			means := pt
			means.Lengths, means.Arrivals = nil, nil
			plain, err := Simulator{Seed: 99}.Predict([]Point{means}, prof)
			if err != nil {
				t.Fatal(err)
			}
			if d := math.Abs(plain[0].TTFT/res.TTFT().Mean() - 1); d < 0.2 {
				t.Errorf("means only: TTFT within %.1f%% of the run; the test needs a workload the lists matter for", 100*d)
			}
		})
	}
}

func TestReadVLLMResultDetailedErrors(t *testing.T) {
	t.Parallel()
	const head = `{"request_rate": 5, "completed": 2, "total_input_tokens": 30, "total_output_tokens": 12, "mean_ttft_ms": 10, `
	for _, tc := range []struct{ body, want string }{
		{`"input_lens": [10, 20], "output_lens": [6]}`, "output_lens 1"},
		{`"input_lens": [10, 20], "output_lens": [6, 6], "errors": [""]}`, "errors 1"},
		{`"input_lens": [10, 20], "output_lens": [6, 6], "start_times": [1]}`, "start_times 1"},
		{`"input_lens": [10, 20, 5], "output_lens": [6, 6, 0], "errors": ["", "", ""]}`, "output_lens[2] 0"},
		{`"input_lens": [10, -1], "output_lens": [6, 6]}`, "input_lens[1] -1"},
		{`"input_lens": [10, 20, 7], "output_lens": [6, 6, 3]}`, "completed 2, but 3"},
		{`"burstiness": -1, "input_lens": [10, 20], "output_lens": [6, 6]}`, "burstiness -1"},
	} {
		_, err := ReadVLLMResult(strings.NewReader(head+tc.body), "bad.json")
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalid naming %q", tc.body, err, tc.want)
		}
	}
	// A failed request (an error, or output 0 without errors) is left out.
	for _, body := range []string{
		`"input_lens": [10, 20, 5], "output_lens": [6, 6, 0], "errors": ["", "", "timeout"], "start_times": [3, 1, 2]}`,
		`"input_lens": [10, 20, 5], "output_lens": [6, 6, 0], "start_times": [3, 1, 2]}`,
	} {
		p, err := ReadVLLMResult(strings.NewReader(head+body), "ok.json")
		if err != nil {
			t.Fatal(err)
		}
		want := []workload.Pair{{Input: 20, Output: 6}, {Input: 10, Output: 6}}
		if len(p.Lengths) != 2 || p.Lengths[0] != want[0] || p.Lengths[1] != want[1] || len(p.Arrivals) != 2 || p.Arrivals[0] != 0 || p.Arrivals[1] != 2 {
			t.Errorf("%s: lengths %v arrivals %v, want %v at [0 2]", body, p.Lengths, p.Arrivals, want)
		}
	}
}

// FuzzReadVLLMResult: any bytes give a point or an error matching
// ErrInvalid, never a panic; a point's per-request lists are consistent
// (the replay's times start at 0 and do not decrease) and its run builds.
func FuzzReadVLLMResult(f *testing.F) {
	f.Add(`{"request_rate": 5, "burstiness": 0.5, "completed": 2, "total_input_tokens": 30, "total_output_tokens": 12, "mean_ttft_ms": 10,
		"input_lens": [10, 20, 5], "output_lens": [6, 6, 0], "errors": ["", "", "timeout"], "start_times": [86312.75, 86312.5, 86313]}`)
	f.Add(`{"request_rate": "inf", "max_concurrency": 4, "completed": 2, "total_input_tokens": 30, "total_output_tokens": 12,
		"input_lens": [10, 20], "output_lens": [6, 6]}`)
	f.Add(`{"request_rate": 1e308, "burstiness": "inf", "completed": 1, "total_input_tokens": 0, "total_output_tokens": 1}`)
	f.Add(`{"request_rate": 2, "completed": 2, "total_input_tokens": 2, "total_output_tokens": 2,
		"input_lens": [1, 1], "output_lens": [1, 1], "start_times": [-1.7e308, 1.7e308]}`)
	f.Add(`{"request_rate": 2, "completed": 1, "total_input_tokens": 2, "total_output_tokens": 2}
{"request_rate": "inf", "ramp_up_strategy": "linear", "completed": 1, "total_input_tokens": 2, "total_output_tokens": 2,
"input_lens": [2], "output_lens": [2], "start_times": [NaN]}`)
	f.Add(vllmFile(`"num_prompts": 10`, `"num_prompts": 2000000000`))
	f.Add(vllmFile(`"request_rate": 4`, `"request_rate": NaN, "max_concurrency": NaN`, `"mean_ttft_ms": 30`, `"mean_ttft_ms": -5`))
	f.Fuzz(func(t *testing.T, js string) {
		pts, err := ReadVLLMResults(strings.NewReader(js), "fuzz.json")
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("error %v does not match ErrInvalid", err)
			}
			return
		}
		for _, p := range pts {
			if len(p.Arrivals) > 0 && len(p.Arrivals) != len(p.Lengths) {
				t.Fatalf("%d arrivals for %d lengths", len(p.Arrivals), len(p.Lengths))
			}
			for i, a := range p.Arrivals {
				if (i == 0 && a != 0) || (i > 0 && !(a >= p.Arrivals[i-1])) || math.IsInf(a, 0) {
					t.Fatalf("arrival %d at %v after %v", i, a, p.Arrivals)
				}
			}
			if n := InFlight(p); n < 0 || (p.NumPrompts > 0 && n > float64(max(p.NumPrompts, len(p.Arrivals)))) {
				t.Fatalf("%v requests in flight of %d", n, p.NumPrompts)
			}
			p.GPU, p.TP, p.Model = "h100-sxm", 1, "meta-llama/Llama-3.1-8B"
			if _, err := (Simulator{}).Config(p, mustProfile(t, "h100-sxm")); err != nil && !errors.Is(err, ErrInvalid) {
				t.Fatalf("config: %v does not match ErrInvalid", err)
			}
		}
	})
}

// TestReadVLLMResults: a file of appended results (--append-result) gives
// one point each, named file#k; ReadVLLMResult refuses it rather than
// keep the first; Python's bare NaN and Infinity read as absent and inf.
func TestReadVLLMResults(t *testing.T) {
	t.Parallel()
	const two = `{"request_rate": 2, "burstiness": Infinity, "completed": 4, "total_input_tokens": 400, "total_output_tokens": 4, "mean_ttft_ms": 30, "mean_tpot_ms": NaN}
{"request_rate": 8, "completed": 4, "total_input_tokens": 400, "total_output_tokens": 40, "mean_ttft_ms": 60, "mean_tpot_ms": 9}
`
	pts, err := ReadVLLMResults(strings.NewReader(two), "sweep.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 2 || pts[0].ID != "sweep.json#1" || pts[1].ID != "sweep.json#2" || pts[0].Rate != 2 || pts[1].Rate != 8 {
		t.Fatalf("points %+v", pts)
	}
	if !math.IsInf(pts[0].Burstiness, 1) || pts[0].Measured.TPOT != 0 || pts[0].Measured.TTFT != 0.03 {
		t.Errorf("Python's Infinity and NaN: burstiness %v, TPOT %v, TTFT %v; want +Inf, 0 (not measured), 0.03", pts[0].Burstiness, pts[0].Measured.TPOT, pts[0].Measured.TTFT)
	}
	if rs := residuals(pts[:1], []Metrics{{TTFT: 1, TPOT: 1}}, nil); len(rs) != 1 || rs[0].Metric != TTFT {
		t.Errorf("a NaN mean was compared: %+v", rs)
	}
	if _, err := ReadVLLMResult(strings.NewReader(two), "sweep.json"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "holds 2 results") {
		t.Errorf("ReadVLLMResult on two results: %v", err)
	}
	for _, bad := range []string{"", "  \n", `{"completed": 1, "total_output_tokens": 1}` + "\n[1]"} {
		if _, err := ReadVLLMResults(strings.NewReader(bad), "bad.json"); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", bad, err)
		}
	}
	if _, err := ReadVLLMResults(strings.NewReader(`{"request_rate": 2, "completed": 1, "total_input_tokens": 1, "total_output_tokens": 1,
		"input_lens": [1], "output_lens": [1], "start_times": [NaN]}`), "nan.json"); err == nil || !strings.Contains(err.Error(), "start_times[0] is null") {
		t.Errorf("a NaN start time: %v", err)
	}
}

// TestDetailedRuns: what a --save-detailed file makes of its run. A capped
// open loop keeps its requests in file order and is not replayed (its start
// times are when the cap let each go); equal start times keep file order;
// the failed requests are left out of the run, not re-simulated with other
// requests' lengths; a ramp-up run without start times is refused rather
// than sent all at once; an open loop sends vLLM's gamma gaps of the file's
// burstiness, rescaled to end at n/rate.
func TestDetailedRuns(t *testing.T) {
	t.Parallel()
	const lists = `"completed": 3, "total_input_tokens": 60, "total_output_tokens": 18,
		"input_lens": [10, 20, 30, 40], "output_lens": [6, 6, 6, 0], "errors": ["", "", "", "timeout"], "start_times": [5, 3, 3, 1]}`
	capped, err := ReadVLLMResult(strings.NewReader(`{"request_rate": 4, "burstiness": 0.5, "max_concurrency": 2, "num_prompts": 4, `+lists), "capped.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(capped.Arrivals) != 0 || len(capped.Lengths) != 3 || capped.Lengths[0].Input != 10 || capped.Lengths[2].Input != 30 || capped.NumPrompts != 3 {
		t.Errorf("capped run: arrivals %v, lengths %v, %d prompts; want no replay, [10 20 30] in file order, 3 prompts", capped.Arrivals, capped.Lengths, capped.NumPrompts)
	}
	capped.GPU, capped.TP, capped.Model = "h100-sxm", 1, "meta-llama/Llama-3.1-8B"
	cfg, err := (Simulator{}).Config(capped, mustProfile(t, "h100-sxm"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Requests != 3 || cfg.Workload.Arrivals != (workload.Gamma{Rate: 4, Burstiness: 0.5, Normalize: true}) || cfg.Workload.MaxConcurrency != 2 {
		t.Errorf("capped run simulated as %d requests, arrivals %#v, cap %d; want 3, vLLM's rescaled gamma gaps of shape 0.5 at 4 req/s, cap 2",
			cfg.Requests, cfg.Workload.Arrivals, cfg.Workload.MaxConcurrency)
	}
	capped.IndependentGaps = true // as aiperf draws them
	if cfg, err = (Simulator{}).Config(capped, mustProfile(t, "h100-sxm")); err != nil || cfg.Workload.Arrivals != (workload.Gamma{Rate: 4, Burstiness: 0.5}) {
		t.Errorf("independent gaps: arrivals %#v (%v), want gamma gaps not rescaled", cfg.Workload.Arrivals, err)
	}
	open, err := ReadVLLMResult(strings.NewReader(`{"request_rate": 4, `+lists), "open.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := open.Arrivals; len(got) != 3 || got[0] != 0 || got[1] != 0 || got[2] != 2 || open.Lengths[0].Input != 20 || open.Lengths[1].Input != 30 {
		t.Errorf("replay: arrivals %v lengths %v; want [0 0 2] with 20 and 30 (tied at 3 s) in file order", got, open.Lengths)
	}
	if _, err := ReadVLLMResult(strings.NewReader(`{"request_rate": "inf", "ramp_up_strategy": "linear", "completed": 2, "total_input_tokens": 20,
		"total_output_tokens": 4}`), "ramp.json"); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "ramp_up_strategy linear") {
		t.Errorf("ramp-up run without start times: %v, want ErrInvalid naming ramp_up_strategy", err)
	}
	if ramp, err := ReadVLLMResult(strings.NewReader(`{"request_rate": "inf", "ramp_up_strategy": "linear", `+lists), "ramp.json"); err != nil || len(ramp.Arrivals) != 3 {
		t.Errorf("ramp-up run with start times: %v, %d arrivals; want it replayed", err, len(ramp.Arrivals))
	}
}

// TestInFlight: the requests a run held at once, by Little's law for an
// open loop, never more than the run's requests.
func TestInFlight(t *testing.T) {
	t.Parallel()
	m := Metrics{TTFT: 0.1, TPOT: 0.01, E2E: 2}
	for _, tc := range []struct {
		name string
		p    Point
		want float64
	}{
		{"closed loop", Point{Concurrency: 8, NumPrompts: 80}, 8},
		{"closed loop of fewer requests than clients", Point{Concurrency: 64, NumPrompts: 10}, 10},
		{"rate times measured E2E", Point{Rate: 3, NumPrompts: 100, Measured: m}, 6},
		{"rate times TTFT + (O-1) TPOT", Point{Rate: 3, NumPrompts: 100, Output: 11, Measured: Metrics{TTFT: 0.1, TPOT: 0.01}}, 0.6},
		{"capped", Point{Rate: 3, MaxConcurrency: 4, NumPrompts: 100, Measured: m}, 4},
		{"short burst", Point{Rate: 100, NumPrompts: 10, Measured: m}, 10},
		{"all at once", Point{Rate: math.Inf(1), NumPrompts: 12, Measured: m}, 12},
		{"replay", Point{Arrivals: []float64{0, 1, 2, 3, 4}, Lengths: make([]workload.Pair, 5), Measured: Metrics{E2E: 0.5}}, 0.5},
		{"replay of one instant", Point{Arrivals: []float64{0, 0, 1e-6}, Lengths: make([]workload.Pair, 3), Measured: m}, 3},
		{"nothing measured", Point{Rate: 3, NumPrompts: 100}, 0},
	} {
		if got := InFlight(tc.p); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s: %v in flight, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSetup(t *testing.T) {
	t.Parallel()
	eng := batching.Config{Deployment: cost.Deployment{TP: 4, DP: 2, EP: 8}}
	for _, tc := range []struct {
		p    Point
		want string
	}{
		{Point{TP: 2, Input: 1024, Output: 128, Concurrency: 8}, "tp2 1024x128 c8"},
		{Point{TP: 1, Engine: &eng, Input: 1000, Output: 200, Rate: 4, Burstiness: 0.5, MaxConcurrency: 16, Lengths: make([]workload.Pair, 3)}, "tp4 dp2 ep8 mean 1000x200 rate 4 b0.5 cap 16"},
		{Point{TP: 1, Input: 10, Output: 2, Rate: math.Inf(1), Burstiness: 1}, "tp1 10x2 rate +Inf"},
		{Point{TP: 1, Arrivals: []float64{0, 9.6}, Lengths: make([]workload.Pair, 2)}, "tp1 replay of 2 requests over 10 s"},
	} {
		if got := tc.p.Setup(); got != tc.want {
			t.Errorf("Setup() = %q, want %q", got, tc.want)
		}
	}
}
