package main

import (
	"io"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

// vllm returns the options as vllmbench reads them, for the scenario sc
// they built.
func (o *benchOptions) vllm(sc *scenario.Scenario) *vllmbench.Options {
	return &vllmbench.Options{
		Model: o.model, Label: o.label, Tokenizer: o.tokenizer, Backend: o.backend,
		RequestRate: o.requestRate, Burstiness: o.burstiness,
		MaxConcurrency: o.maxConcurrency, NumPrompts: o.numPrompts, NumWarmups: o.numWarmups,
		DatasetName: o.datasetName, DatasetPath: o.datasetPath,
		RandomInputLen: o.randomInputLen, RandomOutputLen: o.randomOutputLen, RandomPrefixLen: o.randomPrefixLen,
		RangeIn: o.rangeIn, RangeOut: o.rangeOut, SkipTokenizerInit: o.skipTokenizerInit,
		SLO: o.slo, GoodputGiven: o.goodputGiven, Percentiles: o.percentiles, Metrics: o.metrics,
		SaveDetailed: o.saveDetailed, AppendResult: o.appendResult, Metadata: o.metadata,
		ResultDir: o.resultDir, ResultFilename: o.resultFilename,
		RampStrategy: o.rampStrategy, RampStart: o.rampStart, RampEnd: o.rampEnd,
		SummaryOnly: o.summaryOnly, Tokens: o.tokens, FailureReason: failureReason(sc, true),
	}
}

// printPreamble writes what vLLM prints before the run (vllmbench).
func printPreamble(w io.Writer, o *benchOptions, sc *scenario.Scenario) {
	vllmbench.WritePreamble(w, o.vllm(sc), sc)
}

// printSummary writes vLLM's result block (vllmbench).
func printSummary(w io.Writer, o *benchOptions, sc *scenario.Scenario, res *sim.Result) error {
	return vllmbench.WriteSummary(w, o.vllm(sc), sc, res)
}

// saveBenchResult writes the --save-result file (vllmbench) and returns
// its path.
func saveBenchResult(o *benchOptions, sc *scenario.Scenario, res *sim.Result) (string, error) {
	return vllmbench.SaveResult(o.vllm(sc), sc, res)
}

// parseMetadata checks --metadata's KEY=VALUE items (vllmbench).
var parseMetadata = vllmbench.ParseMetadata
