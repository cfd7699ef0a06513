package vllmbench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/specdecode"
)

// generationBackends are the --backend values of text generation.
var generationBackends = []string{"openai", "vllm", "openai-chat", "openai-audio", "openai-responses"}

// poolingBackends are vLLM's embedding and scoring backends.
var poolingBackends = []string{"openai-embeddings", "openai-embeddings-chat", "openai-embeddings-clip", "openai-embeddings-vlm2vec",
	"infinity-embeddings", "infinity-embeddings-clip", "vllm-pooling", "vllm-rerank"}

// Validate applies vLLM's own checks of the client flags (serve.py's
// main_async: --max-concurrency, --backend, the ramp, --metadata, ...)
// and refuses what servesim does not model yet. Scenario calls it first;
// the checks that need the dataset (its lengths, the request limits)
// come after it there. Every error is a *fielderr.Error whose Field is
// the flag as typed on vLLM's command line ("--max-concurrency") and
// whose Value is what it was given.
func (o *Options) Validate() error {
	switch {
	case o.Given["max-concurrency"] && o.MaxConcurrency <= 0:
		return &fielderr.Error{Field: "--max-concurrency", Value: o.MaxConcurrency,
			Limit: "must be greater than 0 (vLLM's rule)", Fix: "leave it out for no cap"}
	case slices.Contains(poolingBackends, o.Backend):
		return &fielderr.Error{Field: "--backend", Value: o.Backend,
			Limit: "is an embedding or pooling backend, which servesim does not simulate",
			Fix:   "use a generation backend: " + strings.Join(generationBackends, ", ")}
	case !slices.Contains(generationBackends, o.Backend):
		return fielderr.New("--backend", o.Backend, "is an invalid choice (choose from %s)",
			strings.Join(append(slices.Clone(generationBackends), poolingBackends...), ", "))
	case o.CPUOffloadGB > 0:
		return &fielderr.Error{Field: "--cpu-offload-gb", Value: o.CPUOffloadGB,
			Limit: "must be 0: weight offloading to the CPU is not modelled", Fix: "leave it out"}
	case o.MaxPartialPrefills > 1:
		return &fielderr.Error{Field: "--max-num-partial-prefills", Value: o.MaxPartialPrefills,
			Limit: "must be at most 1: only one partial prefill at a time is modelled", Fix: "leave it out"}
	case o.ProbeRequestRate > 0:
		return &fielderr.Error{Field: "--probe-request-rate", Value: o.ProbeRequestRate,
			Limit: "must be 0: probe requests are not simulated yet", Fix: "leave it out (0 sends none)"}
	case o.SelfTimed != nil && o.DatasetName != "timed_trace":
		flag := "--self-timed"
		if !*o.SelfTimed {
			flag = "--no-self-timed"
		}
		return &fielderr.Error{Field: flag,
			Limit: fmt.Sprintf("is only supported with --dataset-name=timed_trace, not --dataset-name=%s (vLLM's rule)", o.DatasetName),
			Fix:   "drop " + flag}
	}
	if _, err := ParseMetadata(o.Metadata); err != nil {
		return err
	}
	return o.checkRamp()
}

// checkRamp applies vLLM's ramp-up rules.
func (o *Options) checkRamp() error {
	if o.RampStrategy == "" {
		return nil
	}
	switch {
	case o.RampStrategy != "linear" && o.RampStrategy != "exponential":
		return fielderr.New("--ramp-up-strategy", o.RampStrategy, "is an invalid choice (choose from linear, exponential)")
	case o.Given["request-rate"] && !math.IsInf(o.RequestRate, 1):
		return &fielderr.Error{Field: "--request-rate", Value: o.RequestRate,
			Limit: "must not be given with --ramp-up-strategy: when using ramp-up, the ramp-up parameters control the rate (vLLM's rule)",
			Fix:   "do not specify --request-rate"}
	case !o.Given["ramp-up-start-rps"] || !o.Given["ramp-up-end-rps"]:
		var missing []string
		for _, f := range []string{"ramp-up-start-rps", "ramp-up-end-rps"} {
			if !o.Given[f] {
				missing = append(missing, "--"+f)
			}
		}
		return &fielderr.Error{Field: "--ramp-up-strategy", Value: o.RampStrategy,
			Limit: "needs --ramp-up-start-rps and --ramp-up-end-rps", Fix: "add " + strings.Join(missing, " and ")}
	case o.RampStart > o.RampEnd:
		return fielderr.New("--ramp-up-start-rps", o.RampStart, "must not exceed --ramp-up-end-rps %d", o.RampEnd)
	case o.RampStart == 0 && o.RampStrategy == "exponential":
		return &fielderr.Error{Field: "--ramp-up-start-rps", Value: o.RampStart,
			Limit: "is not allowed for exponential ramp-up: the start RPS cannot be 0 (vLLM's rule)", Fix: "start at 1 or more"}
	case o.RampStart == 0:
		return &fielderr.Error{Field: "--ramp-up-start-rps", Value: o.RampStart,
			Limit: "would make the first request's rate 0, where vLLM stops (\"Obtained non-positive request rate\")", Fix: "start at 1 or more"}
	}
	return nil
}

// Scenario checks the options with vLLM's rules (and refuses what
// servesim does not model), fills in the derived fields (RangeIn,
// RangeOut, GoodputGiven, Percentiles, Metrics, Tokens) and returns the
// scenario of one run, seed Seed, with its dataset built. Its errors name
// the flags.
func (o *Options) Scenario() (*scenario.Scenario, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if o.Given["input-len"] {
		o.RandomInputLen = o.InputLen
	}
	if o.Given["output-len"] {
		o.RandomOutputLen, o.ShareGPTOutputLen, o.CustomOutputLen, o.PrefixRepetition.OutputLen = o.OutputLen, o.OutputLen, o.OutputLen, o.OutputLen
		o.SpecBenchOutputLen = o.OutputLen
	}
	ps, err := cliflag.FloatList(o.MetricPercentiles)
	if err != nil {
		return nil, fmt.Errorf("--metric-percentiles %q: %v", o.MetricPercentiles, err)
	}
	o.Percentiles = ps
	o.Metrics = nil
	for _, m := range strings.Split(o.PercentileMetrics, ",") {
		m = strings.TrimSpace(m)
		switch m {
		case "ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue":
			o.Metrics = append(o.Metrics, m)
		case "":
		default:
			return nil, fmt.Errorf("--percentile-metrics: unknown metric %q (want ttft, tpot, itl, e2el, client_queue_time, e2el_including_client_queue)", m)
		}
	}
	o.GoodputGiven = o.SLO.Set()

	sc := scenario.Default()
	sc.Name = "bench"
	sc.Seed = o.Seed
	sc.SummaryOnly = o.SummaryOnly
	sc.Percentiles = ps
	sc.SLO = o.SLO
	sc.Server = o.Server
	sc.Server.PipelineParallelSize = o.PipelineParallel
	if o.SpeculativeConfig != "" {
		sp, err := specdecode.Parse(o.SpeculativeConfig)
		if err != nil {
			return nil, fmt.Errorf("--speculative-config: %v", err)
		}
		sc.Server.SpeculativeConfig = &sp
	}
	sc.Server.Model = o.Model
	if sc.UseCheckpoint(o.Tokenizer) && o.Notes != nil {
		fmt.Fprintf(o.Notes, "servesim: note: --model %s is not a checkpoint servesim knows: simulating %s, the checkpoint --tokenizer names (--model is the served name, as vLLM's client sends it)\n", o.Model, o.Tokenizer)
	}
	sc.Server.Servers = o.Servers
	sc.Server.Service = o.ServiceTime
	if sc.Server.Kind == scenario.KindFCFS {
		for _, f := range engineOnlyFlags {
			if o.Given[f] {
				return nil, fmt.Errorf("--%s applies to --server vllm, not fcfs (an FCFS queue takes --servers and --service-time)", f)
			}
		}
	} else if o.Given["servers"] || o.Given["service-time"] {
		return nil, errors.New("--servers and --service-time apply to --server fcfs")
	}
	sc.Workload.MaxConcurrency = max(o.MaxConcurrency, 0)
	if err := o.lengths(&sc); err != nil {
		return nil, err
	}
	if err := o.checkSize(sc.Requests); err != nil {
		return nil, err
	}
	// bench: vLLM sends its warm-ups before the measured run and waits for
	// them, so the run starts on an idle server; capacity and tp lead the
	// measured stream with them.
	if !o.Bench {
		sc.Warmup = o.NumWarmups
		sc.Requests += o.NumWarmups
	}
	if err := o.arrivals(&sc); err != nil {
		return nil, err
	}
	return &sc, nil
}

// arrivals sets the arrival process: vLLM's (the trace's timestamps, a
// ramp, or Gamma gaps rescaled to end at n/rate), or independent gaps.
func (o *Options) arrivals(sc *scenario.Scenario) error {
	a := &scenario.Arrival{Normalize: o.Normalize}
	replay := o.TraceTimestamps || (o.DatasetName == "timed_trace" && (o.SelfTimed == nil || *o.SelfTimed))
	if o.Given["trace-speedup"] && !o.TraceTimestamps {
		return errors.New("--trace-speedup applies to --trace-timestamps (a trace replay)")
	}
	switch {
	case replay:
		if o.TraceTimestamps && (o.Given["request-rate"] || o.Given["burstiness"] || o.RampStrategy != "") {
			return errors.New("--trace-timestamps replays the trace's times: drop --request-rate, --burstiness and --ramp-up-*")
		}
		speed := o.TraceSpeedup
		if o.DatasetName == "timed_trace" {
			// The JSONL loader reads milliseconds; vLLM's seconds are the
			// timestamps times --timed-trace-sec-multiplier.
			speed = 1 / (1000 * o.TimedTraceMultiplier)
		}
		a = &scenario.Arrival{Process: "trace", Path: o.DatasetPath, Speedup: speed}
	case o.RampStrategy != "":
		a.Process, a.Start, a.End, a.Strategy = "ramp", float64(o.RampStart), float64(o.RampEnd), o.RampStrategy
		if o.Burstiness != 1 {
			a.Burstiness = o.Burstiness
		}
		if o.Given["normalize-arrivals"] && o.Normalize {
			return errors.New("--normalize-arrivals does not apply to a ramp (vLLM rescales only constant rates)")
		}
		a.Normalize = false
	case math.IsInf(o.RequestRate, 1) || o.Burstiness == 1:
		a.Process, a.Rate = "poisson", scenario.Rate(o.RequestRate)
		a.Normalize = a.Normalize && !math.IsInf(o.RequestRate, 1)
	default:
		a.Process, a.Rate, a.Burstiness = "gamma", scenario.Rate(o.RequestRate), o.Burstiness
	}
	if (o.Given["ramp-up-start-rps"] || o.Given["ramp-up-end-rps"]) && o.RampStrategy == "" && !o.Bench {
		return errors.New("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy linear or exponential")
	}
	sc.Workload.Arrival = a
	return nil
}

// checkSize enforces the request limits of a run (scenario.MaxRecordedRequests,
// scenario.MaxRequests) on the measured requests n plus, outside bench,
// --num-warmups.
func (o *Options) checkSize(n int) error {
	total := int64(n)
	what := fmt.Sprintf("--num-prompts %d exceeds", n)
	if !o.Bench && o.NumWarmups > 0 {
		total += int64(o.NumWarmups)
		what = fmt.Sprintf("--num-prompts %d + --num-warmups %d = %d requests exceed", n, o.NumWarmups, total)
	}
	switch {
	case o.SummaryOnly && o.SaveDetailed:
		return errors.New("--save-detailed needs every request's record: drop --summary-only")
	case !o.SummaryOnly && total > scenario.MaxRecordedRequests:
		return fmt.Errorf("%s %d, the limit with every request's record kept (measured: about 290 bytes each in a steady run, 750 when all wait at once, so 2.9 to 7.5 GB at the limit): add --summary-only to keep quantile sketches instead (percentiles within 0.5%%; memory follows the requests in flight)",
			what, scenario.MaxRecordedRequests)
	case total > scenario.MaxRequests:
		return fmt.Errorf("%s %d, the limit with --summary-only (a run that long takes ten minutes or more): run fewer requests", what, scenario.MaxRequests)
	}
	return nil
}
