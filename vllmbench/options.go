// Package vllmbench owns servesim's side of `vllm bench serve`'s
// interface: the options of a run as vLLM's client names them (Options),
// the summary block it prints (WritePreamble, WriteSummary) and the result
// JSON of --save-result (ResultJSON, SaveResult), written from a typed
// sim.Result with no round trip through text. `servesim bench`, the HTML
// report of a bench run and calibrate's re-simulations share it.
//
// Formats follow vLLM's benchmarks/serve.py: numbers as Python prints
// them (PyFloat), NaN and infinities as Python's json.dump writes them,
// keys in vLLM's order, servesim's own fields under one "servesim" key so
// that vLLM's tooling reads the rest.
package vllmbench

import "github.com/servesim/servesim/scenario"

// Options are the `vllm bench serve` arguments a summary and a result
// file show, in vLLM's names; a zero value is a run at rate 0 with
// nothing set, so callers fill in what their run used.
type Options struct {
	// Model, Label, Tokenizer and Backend are --model, --label,
	// --tokenizer and --backend.
	Model, Label, Tokenizer, Backend string
	// RequestRate is --request-rate in requests/s (+Inf: all at once);
	// Burstiness the gamma shape of the gaps (1: Poisson).
	RequestRate, Burstiness float64
	// MaxConcurrency is --max-concurrency (0: none), NumPrompts
	// --num-prompts, NumWarmups --num-warmups.
	MaxConcurrency, NumPrompts, NumWarmups int
	// DatasetName and DatasetPath are --dataset-name and --dataset-path.
	DatasetName, DatasetPath string
	// RandomInputLen, RandomOutputLen and RandomPrefixLen are the random
	// dataset's --random-*-len, in tokens.
	RandomInputLen, RandomOutputLen, RandomPrefixLen int
	// RangeIn is --random-range-ratio for inputs; RangeOut, when not nil,
	// the outputs' when the ratio sets them apart.
	RangeIn  float64
	RangeOut *float64
	// SkipTokenizerInit is --skip-tokenizer-init: no token metrics.
	SkipTokenizerInit bool
	// SLO holds --goodput's bounds and the SLO target; GoodputGiven says a
	// bound is set.
	SLO          scenario.SLO
	GoodputGiven bool
	// Percentiles are --metric-percentiles, Metrics --percentile-metrics.
	Percentiles []float64
	Metrics     []string
	// SaveDetailed, AppendResult, Metadata, ResultDir and ResultFilename
	// are the --save-result family's flags.
	SaveDetailed, AppendResult bool
	Metadata                   []string
	ResultDir, ResultFilename  string
	// RampStrategy, RampStart and RampEnd are --ramp-up-strategy and its
	// start and end rates in requests/s.
	RampStrategy       string
	RampStart, RampEnd int
	// SummaryOnly is servesim's --summary-only (sketches, no records).
	SummaryOnly bool
	// Tokens says how the dataset's token counts were made ("" when no
	// note is due); FailureReason why the server rejects requests, for
	// the errors of failed ones (in the caller's names).
	Tokens, FailureReason string
}
