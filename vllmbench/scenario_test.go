package vllmbench

import (
	"math"
	"strings"
	"testing"

	"github.com/servesim/servesim/fielderr"
)

// given returns o with the named flags marked as given.
func given(o Options, names ...string) Options {
	o.Given = map[string]bool{}
	for _, n := range names {
		o.Given[n] = true
	}
	return o
}

// TestScenarioErrors: vLLM's own checks of its client flags, and what
// servesim refuses, each an error naming the flag and what to do.
func TestScenarioErrors(t *testing.T) {
	t.Parallel()
	bench := Defaults(true)
	ramp := func(strategy string, start, end int) Options {
		o := given(bench, "ramp-up-strategy", "ramp-up-start-rps", "ramp-up-end-rps")
		o.RampStrategy, o.RampStart, o.RampEnd = strategy, start, end
		return o
	}
	tests := []struct {
		name string
		o    func() Options
		want string
	}{
		{"zero concurrency", func() Options { o := given(bench, "max-concurrency"); o.MaxConcurrency = 0; return o },
			"--max-concurrency: 0 must be greater than 0 (vLLM's rule); leave it out for no cap"},
		{"pooling backend", func() Options { o := bench; o.Backend = "vllm-rerank"; return o },
			`--backend: "vllm-rerank" is an embedding or pooling backend, which servesim does not simulate; use a generation backend: openai,`},
		{"unknown backend", func() Options { o := bench; o.Backend = "tgi"; return o }, `--backend: "tgi" is an invalid choice (choose from openai,`},
		{"cpu offload", func() Options { o := bench; o.CPUOffloadGB = 4; return o }, "--cpu-offload-gb: 4 must be 0: weight offloading to the CPU is not modelled"},
		{"probe requests", func() Options { o := bench; o.ProbeRequestRate = 1; return o }, "--probe-request-rate: 1 must be 0: probe requests are not simulated yet; leave it out (0 sends none)"},
		{"random with a path", func() Options { o := given(bench, "dataset-path"); o.DatasetPath = "x.json"; return o },
			"cannot use 'random' dataset with --dataset-path"},
		{"file dataset without a path", func() Options { o := bench; o.DatasetName = "sharegpt"; return o }, "--dataset-name sharegpt needs --dataset-path FILE"},
		{"download-only dataset", func() Options { o := bench; o.DatasetName = "custom_audio"; return o }, "--dataset-name custom_audio: audio requests are not simulated"},
		{"unknown dataset", func() Options { o := bench; o.DatasetName = "nope"; return o }, `--dataset-name: invalid choice "nope"`},
		{"range ratio 1", func() Options { o := bench; o.RandomRangeRatio = "1"; return o }, "--random-range-ratio 1: input_range_ratio 1 must be in [0, 1)"},
		{"range ratio dict", func() Options { o := bench; o.RandomRangeRatio = `{"input": 0.2, "output": 1.5}`; return o },
			"output_range_ratio 1.5 must be in [0, 1)"},
		{"ramp with rate", func() Options { o := ramp("linear", 1, 5); o.Given["request-rate"], o.RequestRate = true, 5; return o },
			"--request-rate: 5 must not be given with --ramp-up-strategy"},
		{"ramp from 0", func() Options { return ramp("linear", 0, 5) }, "--ramp-up-start-rps: 0 would make the first request's rate 0, where vLLM stops"},
		{"exponential ramp from 0", func() Options { return ramp("exponential", 0, 5) }, "--ramp-up-start-rps: 0 is not allowed for exponential ramp-up: the start RPS cannot be 0"},
		{"ramp down", func() Options { return ramp("linear", 9, 5) }, "--ramp-up-start-rps: 9 must not exceed --ramp-up-end-rps 5"},
		{"unknown ramp", func() Options { return ramp("step", 1, 5) }, `--ramp-up-strategy: "step" is an invalid choice (choose from linear, exponential)`},
		{"self-timed elsewhere", func() Options { o := bench; on := true; o.SelfTimed = &on; return o },
			"--self-timed: is only supported with --dataset-name=timed_trace, not --dataset-name=random (vLLM's rule); drop --self-timed"},
		{"bad metadata", func() Options { o := bench; o.Metadata = []string{"novalue"}; return o }, `--metadata: "novalue" is an invalid metadata format; use KEY=VALUE`},
		{"no prompts", func() Options { o := bench; o.NumPrompts = 0; return o }, "--num-prompts 0 must be >= 1 (custom and spec_bench take <= 0 as every row)"},
		{"bad percentiles", func() Options { o := bench; o.MetricPercentiles = "50,x"; return o }, `--metric-percentiles "50,x": "x" is not a number`},
		{"unknown metric", func() Options { o := bench; o.PercentileMetrics = "ttft,goodput"; return o }, `--percentile-metrics: unknown metric "goodput"`},
		{"fcfs with an engine flag", func() Options { o := given(bench, "max-num-seqs"); o.Server.Kind = "fcfs"; return o },
			"--max-num-seqs applies to --server vllm, not fcfs"},
		{"trace speedup without replay", func() Options { o := given(bench, "trace-speedup"); return o }, "--trace-speedup applies to --trace-timestamps"},
		{"records past the limit", func() Options { o := bench; o.NumPrompts = 20_000_000; return o }, "add --summary-only"},
		{"detail without records", func() Options { o := bench; o.SummaryOnly, o.SaveDetailed = true, true; return o },
			"--save-detailed needs every request's record: drop --summary-only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o()
			if _, err := o.Scenario(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestValidateFieldErrors: every refusal of Validate is a *fielderr.Error
// that names vLLM's flag as typed on its command line and the value it
// was given (nil for a flag that takes none), so a caller reads the flag
// from the error's fields, never from its text.
func TestValidateFieldErrors(t *testing.T) {
	t.Parallel()
	bench := Defaults(true)
	ramp := func(strategy string, start, end int, flags ...string) Options {
		o := given(bench, append([]string{"ramp-up-strategy"}, flags...)...)
		o.RampStrategy, o.RampStart, o.RampEnd = strategy, start, end
		return o
	}
	both := []string{"ramp-up-start-rps", "ramp-up-end-rps"}
	off := false
	tests := []struct {
		name  string
		o     Options
		field string
		value any
	}{
		{"zero concurrency", func() Options { o := given(bench, "max-concurrency"); o.MaxConcurrency = -2; return o }(), "--max-concurrency", -2},
		{"pooling backend", func() Options { o := bench; o.Backend = "vllm-rerank"; return o }(), "--backend", "vllm-rerank"},
		{"unknown backend", func() Options { o := bench; o.Backend = "tgi"; return o }(), "--backend", "tgi"},
		{"cpu offload", func() Options { o := bench; o.CPUOffloadGB = 4; return o }(), "--cpu-offload-gb", 4.0},
		{"partial prefills", func() Options { o := bench; o.MaxPartialPrefills = 2; return o }(), "--max-num-partial-prefills", 2},
		{"probe requests", func() Options { o := bench; o.ProbeRequestRate = 1.5; return o }(), "--probe-request-rate", 1.5},
		{"no-self-timed elsewhere", func() Options { o := bench; o.SelfTimed = &off; return o }(), "--no-self-timed", nil},
		{"bad metadata", func() Options { o := bench; o.Metadata = []string{"a=b", "novalue"}; return o }(), "--metadata", "novalue"},
		{"unknown ramp", ramp("step", 1, 5, both...), "--ramp-up-strategy", "step"},
		{"ramp with rate", func() Options {
			o := ramp("linear", 1, 5, both...)
			o.Given["request-rate"], o.RequestRate = true, 5
			return o
		}(), "--request-rate", 5.0},
		{"ramp without its end", ramp("linear", 1, 5, "ramp-up-start-rps"), "--ramp-up-strategy", "linear"},
		{"ramp down", ramp("linear", 9, 5, both...), "--ramp-up-start-rps", 9},
		{"exponential ramp from 0", ramp("exponential", 0, 5, both...), "--ramp-up-start-rps", 0},
		{"ramp from 0", ramp("linear", 0, 5, both...), "--ramp-up-start-rps", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			fe := fielderr.Of(err)
			if fe == nil {
				t.Fatalf("Validate() = %v, want a *fielderr.Error", err)
			}
			if fe.Field != tt.field || fe.Value != tt.value {
				t.Errorf("field %q value %#v, want %q %#v (%v)", fe.Field, fe.Value, tt.field, tt.value, err)
			}
		})
	}
	if err := bench.Validate(); err != nil {
		t.Errorf("vLLM's defaults: %v", err)
	}
}

// TestScenarioArrivals: the arrival process follows vLLM's client for
// bench (rate inf at once, Gamma gaps rescaled to end at n/rate, a ramp)
// and independent gaps at SearchRate, with warm-ups leading the stream,
// for the searches.
func TestScenarioArrivals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		o                 func() Options
		process           string
		rate, burstiness  float64
		normalize         bool
		requests, warmups int
	}{
		{"bench default", func() Options { return Defaults(true) }, "poisson", math.Inf(1), 0, false, 1000, 0},
		{"bench gamma", func() Options { o := Defaults(true); o.RequestRate, o.Burstiness = 5, 0.5; return o }, "gamma", 5, 0.5, true, 1000, 0},
		{"bench warm-ups run before", func() Options { o := Defaults(true); o.NumWarmups = 10; return o }, "poisson", math.Inf(1), 0, false, 1000, 0},
		{"ramp", func() Options {
			o := given(Defaults(true), "ramp-up-start-rps", "ramp-up-end-rps")
			o.RampStrategy, o.RampStart, o.RampEnd = "linear", 1, 5
			return o
		}, "ramp", 0, 0, false, 1000, 0},
		{"search", func() Options { o := Defaults(false); o.NumWarmups = 10; return o }, "poisson", SearchRate, 0, false, 1010, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o()
			sc, err := o.Scenario()
			if err != nil {
				t.Fatal(err)
			}
			a := sc.Workload.Arrival
			if a.Process != tt.process || float64(a.Rate) != tt.rate || a.Burstiness != tt.burstiness || a.Normalize != tt.normalize {
				t.Errorf("arrival %s rate %v burstiness %v normalize %v; want %s %v %v %v",
					a.Process, a.Rate, a.Burstiness, a.Normalize, tt.process, tt.rate, tt.burstiness, tt.normalize)
			}
			if sc.Requests != tt.requests || sc.Warmup != tt.warmups {
				t.Errorf("%d requests, %d warm-up; want %d and %d", sc.Requests, sc.Warmup, tt.requests, tt.warmups)
			}
		})
	}
}

// TestScenarioLengths: the lengths vLLM's random and prefix_repetition
// datasets give, counted by a run: every prompt is its prefix plus its
// own tokens, and --input-len and --output-len set the random lengths.
func TestScenarioLengths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		o       func(o *Options)
		in, out int64 // total tokens of the 10 or 20 requests
	}{
		{"random prefix", func(o *Options) { o.RandomPrefixLen, o.RandomInputLen = 100, 400 }, 10 * 500, 10 * 128},
		{"input-len and output-len", func(o *Options) {
			o.Given = map[string]bool{"input-len": true, "output-len": true}
			o.InputLen, o.OutputLen = 64, 8
		}, 10 * 64, 10 * 8},
		{"output range apart", func(o *Options) { o.RandomRangeRatio = `{"input": 0.5, "output": 0}` }, -1, 10 * 128},
		{"prefix repetition", func(o *Options) {
			o.DatasetName, o.NumPrompts = "prefix_repetition", 20
			o.PrefixRepetition = PrefixRepetition{PrefixLen: 100, SuffixLen: 28, NumPrefixes: 4, OutputLen: 5}
		}, 20 * 128, 20 * 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			o := Defaults(true)
			o.NumPrompts, o.RequestRate = 10, 50
			tt.o(&o)
			_, res := simulate(t, &o)
			if (tt.in >= 0 && res.TotalInput != tt.in) || res.TotalOutput != tt.out {
				t.Errorf("%d input and %d output tokens; want %d and %d", res.TotalInput, res.TotalOutput, tt.in, tt.out)
			}
		})
	}
}
