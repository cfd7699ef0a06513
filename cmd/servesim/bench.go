package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

// runBench is `servesim bench`.
func runBench(args []string, e *env) error {
	var o benchOptions
	pos, err := parseBenchStyle("bench", benchUsage, args, e, &o, nil)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("bench: unexpected argument %q (bench takes only flags; see servesim bench -h)", pos[0])
	}
	sc, err := o.scenario()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	cfg, err := sc.Config()
	if err != nil {
		return fmt.Errorf("bench: %s", benchFieldError(err))
	}
	cfg.TokenSteps = o.saveDetailed && sc.Server.Kind != scenario.KindFCFS

	printPreamble(e.stdout, &o, sc)
	p := startProgress(e.stderr, e.tty && !o.quiet && !o.disableTqdm, "simulating", 0)
	res, err := sim.Run(cfg)
	p.Stop()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := printSummary(e.stdout, &o, sc, res); err != nil {
		return err
	}
	reportFailures(e.stderr, &o, sc, res)
	if o.saveResult || o.appendResult {
		path, err := saveBenchResult(&o, sc, res)
		if err != nil {
			return fmt.Errorf("bench: --save-result: %w", err)
		}
		if !o.quiet {
			fmt.Fprintf(e.stderr, "servesim: wrote %s\n", path)
		}
	}
	if o.report != "" {
		if err := reportBench(o.report, &o, sc, res); err != nil {
			return fmt.Errorf("bench: --report %s: %w", o.report, err)
		}
		if !o.quiet {
			fmt.Fprintf(e.stderr, "servesim: wrote %s\n", o.report)
		}
	}
	return nil
}

// reportFailures says on stderr why requests failed: a warning when none
// completed (vLLM warns "All requests failed"; servesim knows the limits
// they broke), otherwise a note, unless --quiet. The summary and the JSON
// stay as vLLM writes them.
func reportFailures(w io.Writer, o *benchOptions, sc *scenario.Scenario, res *sim.Result) {
	if res.StoppedBy != sim.StopNone {
		fmt.Fprintf(w, "servesim: warning: the run stopped early (%s): the statistics cover the %d measured requests that ended, of %d sent\n",
			res.Stability.Reason, res.Completed+res.Failed+res.Rejected, res.Measured)
	}
	failed := res.Failed + res.Rejected
	if failed == 0 {
		return
	}
	why := failureReason(sc, true)
	switch {
	case res.Completed == 0:
		fmt.Fprintf(w, "servesim: warning: all %d requests failed: %s\n", failed, why)
	case !o.quiet:
		fmt.Fprintf(w, "servesim: note: %d of %d requests failed: %s\n", failed, res.Measured, why)
	}
}

// failureReason names the limits a server rejects requests by, in flag
// names (flags: flagOfPath) or scenario field names, and how long the
// lengths get.
func failureReason(sc *scenario.Scenario, flags bool) string {
	name, lengths := func(path string) string { return path }, "the workload's"
	if flags {
		name, lengths = func(path string) string { return flagOfPath[path] }, "the dataset's"
	}
	why := "the server rejected them"
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS {
		var limits []string
		if eng.MaxModelLen > 0 {
			limits = append(limits, fmt.Sprintf("input+output above %s %d", name("server.max_model_len"), eng.MaxModelLen))
		}
		if pool, err := eng.Pool(); err == nil {
			limits = append(limits, fmt.Sprintf("a KV footprint (input+output-1) above the pool's %d tokens", pool.Tokens))
		}
		if !eng.EnableChunkedPrefill {
			limits = append(limits, fmt.Sprintf("input+output-1 above %s %d (chunked prefill off)", name("server.max_num_batched_tokens"), eng.MaxNumBatchedTokens))
		}
		why = "the engine rejects requests with " + strings.Join(limits, ", or ")
		if w, err := sc.BuildWorkload(); err == nil {
			if b, ok := w.Lengths.(workload.Bounded); ok {
				_, inHi, _, outHi := b.Bounds()
				why += fmt.Sprintf("; %s lengths reach input %d + output %d = %d tokens", lengths, inHi, outHi, inHi+outHi)
			}
		}
	}
	return why
}

// parseBenchStyle parses the arguments of a subcommand that takes bench's
// flags plus, when define is not nil, its own (define adds them and returns
// their help group): it reads argparse's conventions (argparse), answers
// -h, reports flag errors, records which flags were given and notes on
// stderr those that do nothing here. It returns the remaining positional
// arguments.
func parseBenchStyle(name, usage string, args []string, e *env, o *benchOptions, define func(*flag.FlagSet) flagGroup) ([]string, error) {
	fs, groups := benchFlags(name, o)
	if define != nil {
		groups = append([]flagGroup{define(fs)}, groups...)
	}
	args, err := argparse(fs, args, multiValueFlags)
	if err != nil {
		return nil, fmt.Errorf("%s: %w (see servesim %s -h)", name, err, name)
	}
	pos, err := parseArgs(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, usage)
		printFlags(e.stdout, fs, groups)
		return nil, errHelp
	}
	if err != nil {
		return nil, err
	}
	o.set = setFlags(fs)
	o.stderr = e.stderr
	if err := o.mergeAliases(fs, e.stderr); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	noteNoEffect(e.stderr, o.set, o.quiet)
	return pos, nil
}

// mergeAliases folds each second name of a setting (-tp, -dp,
// --kv-cache-memory-bytes, --endpoint-type,
// --common-prefix-len) into the first. Both names given with different
// values is an error naming both. Old names get a note on stderr.
func (o *benchOptions) mergeAliases(fs *flag.FlagSet, stderr io.Writer) error {
	for _, a := range [][2]string{{"tensor-parallel-size", "tp"}, {"kv-cache-memory", "kv-cache-memory-bytes"},
		{"data-parallel-size", "dp"}, {"backend", "endpoint-type"},
		{"random-prefix-len", "common-prefix-len"}, {"quantization", "q"}, {"pipeline-parallel-size", "pp"}} {
		if !o.set[a[0]] || !o.set[a[1]] {
			continue
		}
		if v0, v1 := fs.Lookup(a[0]).Value.String(), fs.Lookup(a[1]).Value.String(); v0 != v1 {
			return fmt.Errorf("%s %s and %s %s set the same thing to different values: give one", flagSpelling(a[0]), v0, flagSpelling(a[1]), v1)
		}
	}
	if o.set["tp"] {
		o.server.TensorParallelSize = o.tpAlias
	}
	if o.set["kv-cache-memory-bytes"] {
		o.server.KVCacheMemory = scenario.Bytes(o.kvBytesAlias)
	}
	if o.set["dp"] {
		o.server.DataParallelSize = o.dpAlias
	}
	if o.set["q"] {
		o.server.Quantization = o.qAlias
	}
	if o.set["endpoint-type"] {
		o.backend = o.endpointType
	}
	if o.set["common-prefix-len"] {
		o.randomPrefixLen = o.commonPrefixLen
	}
	var old []string
	for _, a := range [][2]string{{"endpoint-type", "backend"}, {"common-prefix-len", "random-prefix-len"}} {
		if o.set[a[0]] {
			old = append(old, fmt.Sprintf("--%s is the old name of --%s", a[0], a[1]))
		}
	}
	if len(old) > 0 && !o.quiet {
		fmt.Fprintf(stderr, "servesim: note: %s (current vLLM rejects the old name)\n", strings.Join(old, "; "))
	}
	return nil
}

// flagSpelling writes a flag as vLLM spells it: its short names (-tp, -dp,
// -pp, -q) with one dash, the others with two.
func flagSpelling(name string) string {
	if len(name) <= 2 {
		return "-" + name
	}
	return "--" + name
}

// generationBackends are the --backend values of text generation.
var generationBackends = []string{"openai", "vllm", "openai-chat", "openai-audio", "openai-responses"}

// poolingBackends are vLLM's embedding and scoring backends.
var poolingBackends = []string{"openai-embeddings", "openai-embeddings-chat", "openai-embeddings-clip", "openai-embeddings-vlm2vec",
	"infinity-embeddings", "infinity-embeddings-clip", "vllm-pooling", "vllm-rerank"}

// checkVLLM applies vLLM's own checks of the client flags (serve.py's
// main_async) and refuses what servesim does not model yet.
func (o *benchOptions) checkVLLM() error {
	switch {
	case o.set["max-concurrency"] && o.maxConcurrency <= 0:
		return errors.New("--max-concurrency must be greater than 0 (vLLM's rule; leave it out for no cap)")
	case slices.Contains(poolingBackends, o.backend):
		return fmt.Errorf("--backend %s: embedding and pooling backends are not simulated (generation backends: %s)", o.backend, strings.Join(generationBackends, ", "))
	case !slices.Contains(generationBackends, o.backend):
		return fmt.Errorf("--backend: invalid choice %q (choose from %s)", o.backend, strings.Join(append(slices.Clone(generationBackends), poolingBackends...), ", "))
	case o.cpuOffloadGB > 0:
		return fmt.Errorf("--cpu-offload-gb %v: weight offloading to the CPU is not modelled", o.cpuOffloadGB)
	case o.maxPartialPrefills > 1:
		return fmt.Errorf("--max-num-partial-prefills %d: only one partial prefill at a time is modelled", o.maxPartialPrefills)
	case o.probeRequestRate > 0:
		return fmt.Errorf("--probe-request-rate %v: probe requests are not simulated yet (0 sends none)", o.probeRequestRate)
	case o.selfTimed.set && o.datasetName != "timed_trace":
		return errors.New("--self-timed/--no-self-timed is only supported with --dataset-name=timed_trace")
	}
	if _, err := parseMetadata(o.metadata); err != nil {
		return err
	}
	return o.checkRamp()
}

// checkRamp applies vLLM's ramp-up rules.
func (o *benchOptions) checkRamp() error {
	if o.rampStrategy == "" {
		return nil
	}
	switch {
	case o.rampStrategy != "linear" && o.rampStrategy != "exponential":
		return fmt.Errorf("--ramp-up-strategy: invalid choice %q (choose from linear, exponential)", o.rampStrategy)
	case o.set["request-rate"] && !math.IsInf(o.requestRate, 1):
		return errors.New("when using ramp-up, do not specify --request-rate: the ramp-up parameters control the rate (vLLM's rule; drop --request-rate)")
	case !o.set["ramp-up-start-rps"] || !o.set["ramp-up-end-rps"]:
		return errors.New("--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps")
	case o.rampStart > o.rampEnd:
		return fmt.Errorf("--ramp-up-start-rps %d must not exceed --ramp-up-end-rps %d", o.rampStart, o.rampEnd)
	case o.rampStart == 0 && o.rampStrategy == "exponential":
		return errors.New("--ramp-up-start-rps: for exponential ramp-up, the start RPS cannot be 0")
	case o.rampStart == 0:
		return errors.New("--ramp-up-start-rps 0: the first request's rate would be 0, where vLLM stops (\"Obtained non-positive request rate\"); start at 1 or more")
	}
	return nil
}

// scenario turns the flags into a scenario (one run, seed --seed).
func (o *benchOptions) scenario() (*scenario.Scenario, error) {
	if err := o.checkVLLM(); err != nil {
		return nil, err
	}
	if o.set["input-len"] {
		o.randomInputLen = o.inputLen
	}
	if o.set["output-len"] {
		o.randomOutputLen, o.sharegptOutputLen, o.customOutputLen, o.prefixRepetition.outputLen = o.outputLen, o.outputLen, o.outputLen, o.outputLen
		o.specBenchOutputLen = o.outputLen
	}
	ps, err := parseFloatList(o.metricPercentiles)
	if err != nil {
		return nil, fmt.Errorf("--metric-percentiles %q: %v", o.metricPercentiles, err)
	}
	o.percentiles = ps
	o.metrics = nil
	for _, m := range strings.Split(o.percentileMetrics, ",") {
		m = strings.TrimSpace(m)
		switch m {
		case "ttft", "tpot", "itl", "e2el", "client_queue_time", "e2el_including_client_queue":
			o.metrics = append(o.metrics, m)
		case "":
		default:
			return nil, fmt.Errorf("--percentile-metrics: unknown metric %q (want ttft, tpot, itl, e2el, client_queue_time, e2el_including_client_queue)", m)
		}
	}
	o.goodputGiven = o.slo.Set()

	sc := scenario.Default()
	sc.Name = "bench"
	sc.Seed = o.seed
	sc.SummaryOnly = o.summaryOnly
	sc.Percentiles = ps
	sc.SLO = o.slo
	sc.Server = o.server
	sc.Server.PipelineParallelSize = o.pipelineParallel
	if o.speculativeConfig != "" {
		sp, err := specdecode.Parse(o.speculativeConfig)
		if err != nil {
			return nil, fmt.Errorf("--speculative-config: %v", err)
		}
		sc.Server.SpeculativeConfig = &sp
	}
	sc.Server.Model = o.model
	if sc.UseCheckpoint(o.tokenizer) && !o.quiet && o.stderr != nil {
		fmt.Fprintf(o.stderr, "servesim: note: --model %s is not a checkpoint servesim knows: simulating %s, the checkpoint --tokenizer names (--model is the served name, as vLLM's client sends it)\n", o.model, o.tokenizer)
	}
	sc.Server.Servers = o.servers
	sc.Server.Service = o.serviceTime
	if sc.Server.Kind == scenario.KindFCFS {
		for _, f := range engineOnlyFlags {
			if o.set[f] {
				return nil, fmt.Errorf("--%s applies to --server vllm, not fcfs (an FCFS queue takes --servers and --service-time)", f)
			}
		}
	} else if o.set["servers"] || o.set["service-time"] {
		return nil, errors.New("--servers and --service-time apply to --server fcfs")
	}
	sc.Workload.MaxConcurrency = max(o.maxConcurrency, 0)
	if err := o.lengths(&sc); err != nil {
		return nil, err
	}
	if err := o.checkSize(sc.Requests); err != nil {
		return nil, err
	}
	// bench: vLLM sends its warm-ups before the measured run and waits for
	// them, so the run starts on an idle server; capacity and tp lead the
	// measured stream with them.
	if !o.isBench() {
		sc.Warmup = o.numWarmups
		sc.Requests += o.numWarmups
	}
	if err := o.arrivals(&sc); err != nil {
		return nil, err
	}
	return &sc, nil
}

// arrivals sets the arrival process: vLLM's (the trace's timestamps, a
// ramp, or Gamma gaps rescaled to end at n/rate), or independent gaps.
func (o *benchOptions) arrivals(sc *scenario.Scenario) error {
	a := &scenario.Arrival{Normalize: o.normalize}
	replay := o.traceTimestamps || (o.datasetName == "timed_trace" && (!o.selfTimed.set || o.selfTimed.v))
	if o.set["trace-speedup"] && !o.traceTimestamps {
		return errors.New("--trace-speedup applies to --trace-timestamps (a trace replay)")
	}
	switch {
	case replay:
		if o.traceTimestamps && (o.set["request-rate"] || o.set["burstiness"] || o.rampStrategy != "") {
			return errors.New("--trace-timestamps replays the trace's times: drop --request-rate, --burstiness and --ramp-up-*")
		}
		speed := o.traceSpeedup
		if o.datasetName == "timed_trace" {
			// The JSONL loader reads milliseconds; vLLM's seconds are the
			// timestamps times --timed-trace-sec-multiplier.
			speed = 1 / (1000 * o.timedTraceMultiplier)
		}
		a = &scenario.Arrival{Process: "trace", Path: o.datasetPath, Speedup: speed}
	case o.rampStrategy != "":
		a.Process, a.Start, a.End, a.Strategy = "ramp", float64(o.rampStart), float64(o.rampEnd), o.rampStrategy
		if o.burstiness != 1 {
			a.Burstiness = o.burstiness
		}
		if o.set["normalize-arrivals"] && o.normalize {
			return errors.New("--normalize-arrivals does not apply to a ramp (vLLM rescales only constant rates)")
		}
		a.Normalize = false
	case math.IsInf(o.requestRate, 1) || o.burstiness == 1:
		a.Process, a.Rate = "poisson", scenario.Rate(o.requestRate)
		a.Normalize = a.Normalize && !math.IsInf(o.requestRate, 1)
	default:
		a.Process, a.Rate, a.Burstiness = "gamma", scenario.Rate(o.requestRate), o.burstiness
	}
	if (o.set["ramp-up-start-rps"] || o.set["ramp-up-end-rps"]) && o.rampStrategy == "" && !o.isBench() {
		return errors.New("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy linear or exponential")
	}
	sc.Workload.Arrival = a
	return nil
}

// checkSize enforces the request limits of a run (scenario.MaxRecordedRequests,
// scenario.MaxRequests) on the measured requests n plus, outside bench,
// --num-warmups.
func (o *benchOptions) checkSize(n int) error {
	total := int64(n)
	what := fmt.Sprintf("--num-prompts %d exceeds", n)
	if !o.isBench() && o.numWarmups > 0 {
		total += int64(o.numWarmups)
		what = fmt.Sprintf("--num-prompts %d + --num-warmups %d = %d requests exceed", n, o.numWarmups, total)
	}
	switch {
	case o.summaryOnly && o.saveDetailed:
		return errors.New("--save-detailed needs every request's record: drop --summary-only")
	case !o.summaryOnly && total > scenario.MaxRecordedRequests:
		return fmt.Errorf("%s %d, the limit with every request's record kept (measured: about 290 bytes each in a steady run, 750 when all wait at once, so 2.9 to 7.5 GB at the limit): add --summary-only to keep quantile sketches instead (percentiles within 0.5%%; memory follows the requests in flight)",
			what, scenario.MaxRecordedRequests)
	case total > scenario.MaxRequests:
		return fmt.Errorf("%s %d, the limit with --summary-only (a run that long takes ten minutes or more): run fewer requests", what, scenario.MaxRequests)
	}
	return nil
}

// withPercentile returns ps with p added when missing, sorted.
func withPercentile(ps []float64, p float64) []float64 {
	if slices.Contains(ps, p) {
		return ps
	}
	out := append(slices.Clone(ps), p)
	slices.Sort(out)
	return out
}
