// Package vllmbench owns servesim's side of `vllm bench serve`'s
// interface, in both directions: the options of a run as vLLM's client
// names them (Options, Defaults; Options.Scenario checks them with vLLM's
// rules and builds the run and its dataset), the flags it accepts with no
// effect in a simulation (NoEffect), argparse's spelling of a command line
// (Argparse), the summary block it prints (WritePreamble, WriteSummary),
// the result JSON of --save-result (ResultJSON, SaveResult), written from
// a typed sim.Result with no round trip through text, and the one reader
// of result files (DecodeResults). `servesim bench`, the HTML report, and
// calibrate share it.
//
// Formats follow vLLM's benchmarks/serve.py: numbers as Python prints
// them (PyFloat), NaN and infinities as Python's json.dump writes them,
// keys in vLLM's order, servesim's own fields under one "servesim" key so
// that vLLM's tooling reads the rest.
package vllmbench

import (
	"io"
	"math"

	"github.com/servesim/servesim/dataset"
	"github.com/servesim/servesim/scenario"
)

// Options are the arguments of `vllm bench serve` (and of the `vllm
// serve` it runs against), in vLLM's names, with servesim's own beside
// them; Defaults gives vLLM's defaults. Rates are requests per second,
// lengths tokens, SLO bounds milliseconds. Scenario checks them and fills
// in the derived fields at the end, which the summary and the result
// file show.
type Options struct {
	// Bench marks `servesim bench`, which follows vLLM's client exactly
	// (rate inf, rescaled arrivals, warm-ups before the run); capacity
	// and tp keep a finite first rate and lead the stream with warm-ups.
	Bench bool
	// Given holds the names of the flags given on the command line (some
	// rules apply only to a flag given); nil for none.
	Given map[string]bool
	// Notes, when not nil, is where notes about the options go (a served
	// name taken for the --tokenizer's checkpoint, a dataset shorter than
	// --num-prompts).
	Notes io.Writer

	// Model, Label, Tokenizer and Backend are --model, --label,
	// --tokenizer and --backend.
	Model, Label, Tokenizer, Backend string
	// RequestRate is --request-rate in requests/s (+Inf: all at once);
	// Burstiness the gamma shape of the gaps (1: Poisson).
	RequestRate, Burstiness float64
	// MaxConcurrency is --max-concurrency (0: none), NumPrompts
	// --num-prompts, NumWarmups --num-warmups.
	MaxConcurrency, NumPrompts, NumWarmups int
	// Seed is --seed.
	Seed uint64
	// DatasetName and DatasetPath are --dataset-name and --dataset-path.
	DatasetName, DatasetPath string
	// RandomInputLen, RandomOutputLen and RandomPrefixLen are the random
	// dataset's --random-*-len; RandomRangeRatio is --random-range-ratio
	// as given (a number, or JSON setting inputs and outputs apart).
	RandomInputLen, RandomOutputLen, RandomPrefixLen int
	RandomRangeRatio                                 string
	// InputLen and OutputLen are --input-len and --output-len (0: not
	// given), which set the lengths of every dataset.
	InputLen, OutputLen int
	// CustomOutputLen, ShareGPTOutputLen and SpecBenchOutputLen are the
	// output lengths of those datasets; SpecBenchCategory keeps one
	// spec_bench category.
	CustomOutputLen, ShareGPTOutputLen, SpecBenchOutputLen int
	SpecBenchCategory                                      string
	// NoOversample and DisableShuffle are --no-oversample and
	// --disable-shuffle.
	NoOversample, DisableShuffle bool
	// PrefixRepetition, HF, Sonnet and MM are the prefix_repetition, hf,
	// sonnet and random-mm datasets' flags.
	PrefixRepetition PrefixRepetition
	HF               dataset.HFOptions
	Sonnet           dataset.SonnetOptions
	MM               RandomMM
	// TimedTraceChunk is --timed-trace-chunk-hash-size (tokens per hash
	// id), TimedTraceMultiplier --timed-trace-sec-multiplier.
	TimedTraceChunk      int
	TimedTraceMultiplier float64
	// SelfTimed is --self-timed (true) or --no-self-timed (false); nil
	// when neither is given.
	SelfTimed *bool
	// SkipTokenizerInit is --skip-tokenizer-init: no token metrics.
	SkipTokenizerInit bool
	// ProbeRequestRate is --probe-request-rate (only 0 is simulated).
	ProbeRequestRate float64
	// SLO holds --goodput's bounds and the SLO target.
	SLO scenario.SLO
	// PercentileMetrics and MetricPercentiles are --percentile-metrics
	// and --metric-percentiles as given (comma-separated).
	PercentileMetrics, MetricPercentiles string
	// SaveDetailed, AppendResult, Metadata, ResultDir and ResultFilename
	// are the --save-result family's flags.
	SaveDetailed, AppendResult bool
	Metadata                   []string
	ResultDir, ResultFilename  string
	// RampStrategy, RampStart and RampEnd are --ramp-up-strategy and its
	// start and end rates in requests/s.
	RampStrategy       string
	RampStart, RampEnd int

	// Server is the `vllm serve` engine (or servesim's FCFS queue) run
	// against; PipelineParallel its --pipeline-parallel-size.
	Server           scenario.Server
	PipelineParallel int
	// CPUOffloadGB and MaxPartialPrefills are vllm serve flags only whose
	// default is modelled (0 and 1).
	CPUOffloadGB       float64
	MaxPartialPrefills int
	// SpeculativeConfig is --speculative-config's JSON.
	SpeculativeConfig string
	// Servers and ServiceTime are the FCFS queue's (--server fcfs).
	Servers     int
	ServiceTime string
	// Normalize rescales arrivals to end at n/rate, as vLLM does;
	// TraceTimestamps replays a trace's times, TraceSpeedup times faster.
	Normalize, TraceTimestamps bool
	TraceSpeedup               float64
	// SummaryOnly is servesim's --summary-only (sketches, no records).
	SummaryOnly bool

	// Derived by Scenario.

	// RangeIn is --random-range-ratio for inputs; RangeOut, when not nil,
	// the outputs' when the ratio sets them apart.
	RangeIn  float64
	RangeOut *float64
	// GoodputGiven says an SLO bound is set.
	GoodputGiven bool
	// Percentiles are --metric-percentiles, Metrics --percentile-metrics.
	Percentiles []float64
	Metrics     []string
	// Tokens says how the dataset's token counts were made ("" when no
	// note is due).
	Tokens string
}

// PrefixRepetition are the --prefix-repetition-* flags, tokens.
type PrefixRepetition struct {
	PrefixLen, SuffixLen, NumPrefixes, OutputLen int
}

// RandomMM are the --random-mm-* flags, as given (the dict and JSON
// values parsed by the dataset package).
type RandomMM struct {
	BaseItems      int
	RangeRatio     float64
	Limit, Buckets string
}

// Defaults of the options vLLM does not have, or whose value differs
// between servesim's commands.
const (
	// SearchRate is the default --request-rate of capacity and tp, where
	// the rate is only the first probe of a search: Poisson arrivals at
	// 20 req/s keep llama-3.1-8b on one h100-sxm (1024 in, 128 out) well
	// inside its capacity. bench takes vLLM's default, inf.
	SearchRate = 20.0
	// ServeGPUMemoryUtilization is `vllm serve`'s default
	// --gpu-memory-utilization (vllm/config/cache.py; 0.9 until late 2025).
	ServeGPUMemoryUtilization = 0.92
	// DefaultBackend is vLLM's default --backend.
	DefaultBackend = "openai"
)

// Defaults returns vLLM's defaults: `vllm bench serve`'s when bench, else
// those of servesim's commands that take its flags to search (capacity,
// tp: SearchRate, independent gaps). The engine's batch limits are left 0,
// `vllm serve`'s default for the GPU (batching.ServeDefaults).
func Defaults(bench bool) Options {
	d := scenario.Default()
	o := Options{Bench: bench, Server: d.Server,
		RequestRate: math.Inf(1), Burstiness: 1, Normalize: bench,
		NumPrompts: 1000, RandomInputLen: 1024, RandomOutputLen: 128, RandomRangeRatio: "0.0", TraceSpeedup: 1,
		Backend: DefaultBackend, CustomOutputLen: 256, SpecBenchOutputLen: 256,
		PrefixRepetition: PrefixRepetition{PrefixLen: 256, SuffixLen: 256, NumPrefixes: 10, OutputLen: 128},
		TimedTraceChunk:  16, TimedTraceMultiplier: 1,
		Model: scenario.DefaultModel, DatasetName: "random",
		MM: RandomMM{BaseItems: dataset.DefaultRandomMM().BaseItems, Limit: `{"image": 255, "video": 1}`,
			Buckets: "{(256, 256, 1): 0.5, (720, 1280, 1): 0.5, (720, 1280, 16): 0.0}"},
		Sonnet:  dataset.SonnetOptions{InputLen: dataset.SonnetInputLen, OutputLen: dataset.SonnetOutputLen, PrefixLen: dataset.SonnetPrefixLen},
		Servers: 1, PipelineParallel: 1, MaxPartialPrefills: 1,
		PercentileMetrics: "ttft,tpot,itl", MetricPercentiles: "99",
		SLO: scenario.SLO{Target: scenario.DefaultTarget},
	}
	o.Server.MaxNumSeqs = 0 // vllm serve's default for the GPU
	o.Server.GPUMemoryUtilization = ServeGPUMemoryUtilization
	o.Server.Replicas, o.Server.GPU, o.Server.Kind = 1, scenario.DefaultGPU, scenario.KindVLLM
	o.Server.DType, o.Server.KVCacheDType, o.Server.Quantization = "auto", "auto", ""
	o.Server.EnableExpertParallel, o.Server.Profile = false, ""
	if !bench {
		o.RequestRate = SearchRate
	}
	return o
}
