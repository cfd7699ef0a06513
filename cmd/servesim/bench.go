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

	p := startProgress(e.stderr, e.tty && !o.quiet, "simulating", 0)
	res, err := sim.Run(cfg)
	p.Stop()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := printSummary(e.stdout, &o, sc, res); err != nil {
		return err
	}
	reportFailures(e.stderr, &o, sc, res)
	if o.saveResult {
		path, err := saveBenchResult(&o, sc, res)
		if err != nil {
			return fmt.Errorf("bench: --save-result: %w", err)
		}
		if !o.quiet {
			fmt.Fprintf(e.stderr, "servesim: wrote %s\n", path)
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
// names (flags) or scenario field names, and how long the lengths get.
func failureReason(sc *scenario.Scenario, flags bool) string {
	why := "the server rejected them"
	if eng, err := sc.Engine(); err == nil && sc.Server.Kind != scenario.KindFCFS {
		var limits []string
		if eng.MaxModelLen > 0 {
			limits = append(limits, fmt.Sprintf("input+output above --max-model-len %d", eng.MaxModelLen))
		}
		if pool, err := eng.Pool(); err == nil {
			limits = append(limits, fmt.Sprintf("a KV footprint (input+output-1) above the pool's %d tokens", pool.Tokens))
		}
		if !eng.EnableChunkedPrefill {
			limits = append(limits, fmt.Sprintf("input+output-1 above --max-num-batched-tokens %d (chunked prefill off)", eng.MaxNumBatchedTokens))
		}
		why = "the engine rejects requests with " + strings.Join(limits, ", or ")
		if w, err := sc.BuildWorkload(); err == nil {
			if b, ok := w.Lengths.(workload.Bounded); ok {
				_, inHi, _, outHi := b.Bounds()
				why += fmt.Sprintf("; the dataset's lengths reach input %d + output %d = %d tokens", inHi, outHi, inHi+outHi)
			}
		}
	}
	if !flags {
		why = fieldOfFlag.Replace(why)
	}
	return why
}

// fieldOfFlag names the scenario fields behind the engine flags.
var fieldOfFlag = strings.NewReplacer("--max-model-len", "max_model_len", "--max-num-batched-tokens", "max_num_batched_tokens", "the dataset's", "the workload's")

// parseBenchStyle parses the arguments of a subcommand that takes bench's
// flags plus, when define is not nil, its own (define adds them and returns
// their help group): it answers -h, reports flag errors, records which
// flags were given, and takes vLLM's trailing --goodput pairs. It returns
// the remaining positional arguments.
func parseBenchStyle(name, usage string, args []string, e *env, o *benchOptions, define func(*flag.FlagSet) flagGroup) ([]string, error) {
	fs, groups := benchFlags(name, o)
	if define != nil {
		groups = append([]flagGroup{define(fs)}, groups...)
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
	if err := o.mergeAliases(fs); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	pos, err = o.goodputPairs(pos)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pos, nil
}

// mergeAliases folds each second name of a setting (-tp,
// --kv-cache-memory-bytes, --replicas, --disable-tqdm) into the first.
// Both names given with different values is an error naming both.
func (o *benchOptions) mergeAliases(fs *flag.FlagSet) error {
	for _, a := range [][2]string{{"tensor-parallel-size", "tp"}, {"kv-cache-memory", "kv-cache-memory-bytes"}, {"data-parallel-size", "replicas"}, {"quiet", "disable-tqdm"}} {
		if !o.set[a[0]] || !o.set[a[1]] {
			continue
		}
		if v0, v1 := fs.Lookup(a[0]).Value.String(), fs.Lookup(a[1]).Value.String(); v0 != v1 {
			return fmt.Errorf("--%s %s and --%s %s set the same thing to different values: give one", a[0], v0, a[1], v1)
		}
	}
	if o.set["tp"] {
		o.server.TensorParallelSize = o.tpAlias
	}
	if o.set["kv-cache-memory-bytes"] {
		o.server.KVCacheMemory = scenario.Bytes(o.kvBytesAlias)
	}
	if o.set["replicas"] {
		o.server.Replicas = o.replicasAlias
	}
	o.quiet = o.quiet || o.disableTqdm
	return nil
}

// goodputPairs takes vLLM's `--goodput ttft:800 tpot:50` form, where the
// pairs after the first arrive as positional arguments, and returns the
// other positional arguments.
func (o *benchOptions) goodputPairs(pos []string) ([]string, error) {
	var rest []string
	for _, a := range pos {
		if !goodputPairRE.MatchString(a) || !o.set["goodput"] {
			rest = append(rest, a)
			continue
		}
		if err := (goodputValue{&o.slo}).Set(a); err != nil {
			return nil, fmt.Errorf("invalid value for --goodput: %v", err)
		}
	}
	return rest, nil
}

// scenario turns the flags into a scenario (one run, seed --seed).
func (o *benchOptions) scenario() (*scenario.Scenario, error) {
	if err := o.checkSize(); err != nil {
		return nil, err
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
		case "ttft", "tpot", "itl", "e2el":
			o.metrics = append(o.metrics, m)
		case "":
		default:
			return nil, fmt.Errorf("--percentile-metrics: unknown metric %q (want ttft, tpot, itl, e2el)", m)
		}
	}
	o.goodputGiven = o.slo.Set()

	sc := scenario.Default()
	sc.Name = "bench"
	sc.Seed = o.seed
	sc.Requests = o.numPrompts + o.numWarmups
	sc.Warmup = o.numWarmups
	sc.SummaryOnly = o.summaryOnly
	sc.Percentiles = ps
	sc.SLO = o.slo
	sc.Server = o.server
	sc.Server.Model = o.model
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
	sc.Workload.MaxConcurrency = o.maxConcurrency

	if o.set["trace-speedup"] && !o.traceTimestamps {
		return nil, errors.New("--trace-speedup applies to --trace-timestamps (a trace replay)")
	}
	switch o.datasetName {
	case "random":
		if o.set["dataset-path"] || o.traceTimestamps {
			return nil, errors.New("--dataset-path and --trace-timestamps need --dataset-name trace")
		}
		sc.Workload.Lengths = scenario.Lengths{Kind: "random", Input: o.randomInputLen, Output: o.randomOutputLen, RangeRatio: o.randomRangeRatio}
	case "trace":
		if o.datasetPath == "" {
			return nil, errors.New("--dataset-name trace needs --dataset-path FILE (CSV or JSONL with input and output lengths)")
		}
		sc.Workload.Lengths = scenario.Lengths{Kind: "trace", Path: o.datasetPath, Order: "resample"}
		if o.traceTimestamps {
			sc.Workload.Lengths.Order = "sequence"
		}
	default:
		return nil, fmt.Errorf("--dataset-name %q is not simulated: use random, or trace with --dataset-path (a CSV or JSONL of input and output lengths)", o.datasetName)
	}

	a := &scenario.Arrival{Normalize: o.normalize}
	switch {
	case o.traceTimestamps:
		if o.set["request-rate"] || o.set["burstiness"] || o.rampStrategy != "" {
			return nil, errors.New("--trace-timestamps replays the trace's times: drop --request-rate, --burstiness and --ramp-up-*")
		}
		a = &scenario.Arrival{Process: "trace", Path: o.datasetPath, Speedup: o.traceSpeedup}
	case o.rampStrategy != "":
		if o.set["request-rate"] {
			return nil, errors.New("--ramp-up-strategy sets the rate: drop --request-rate")
		}
		if !o.set["ramp-up-start-rps"] || !o.set["ramp-up-end-rps"] {
			return nil, errors.New("--ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps")
		}
		a.Process, a.Start, a.End, a.Strategy = "ramp", o.rampStart, o.rampEnd, o.rampStrategy
		if o.burstiness != 1 {
			a.Burstiness = o.burstiness
		}
		a.Normalize = false
		if o.normalize {
			return nil, errors.New("--normalize-arrivals does not apply to a ramp")
		}
	case math.IsInf(o.requestRate, 1) || o.burstiness == 1:
		a.Process, a.Rate = "poisson", scenario.Rate(o.requestRate)
	default:
		a.Process, a.Rate, a.Burstiness = "gamma", scenario.Rate(o.requestRate), o.burstiness
	}
	if o.set["ramp-up-start-rps"] || o.set["ramp-up-end-rps"] {
		if o.rampStrategy == "" {
			return nil, errors.New("--ramp-up-start-rps and --ramp-up-end-rps need --ramp-up-strategy linear or exponential")
		}
	}
	sc.Workload.Arrival = a
	return &sc, nil
}

// checkSize enforces the request limits of a run (scenario.MaxRecordedRequests,
// scenario.MaxRequests) on --num-prompts + --num-warmups.
func (o *benchOptions) checkSize() error {
	n := int64(o.numPrompts) + int64(o.numWarmups)
	what := fmt.Sprintf("--num-prompts %d exceeds", o.numPrompts)
	if o.numWarmups > 0 {
		what = fmt.Sprintf("--num-prompts %d + --num-warmups %d = %d requests exceed", o.numPrompts, o.numWarmups, n)
	}
	switch {
	case o.summaryOnly && o.saveDetailed:
		return errors.New("--save-detailed needs every request's record: drop --summary-only")
	case !o.summaryOnly && n > scenario.MaxRecordedRequests:
		return fmt.Errorf("%s %d, the limit with every request's record kept (about 300 bytes each, 3 GB at the limit): add --summary-only to keep quantile sketches instead (percentiles within 0.5%%; memory follows the requests in flight)",
			what, scenario.MaxRecordedRequests)
	case n > scenario.MaxRequests:
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
