package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
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
	pos, err = o.goodputPairs(pos)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pos, nil
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
	switch {
	case o.numPrompts < 1:
		return nil, fmt.Errorf("--num-prompts %d must be >= 1", o.numPrompts)
	case o.numWarmups < 0:
		return nil, fmt.Errorf("--num-warmups %d must be >= 0", o.numWarmups)
	case o.maxConcurrency < 0:
		return nil, fmt.Errorf("--max-concurrency %d must be >= 0", o.maxConcurrency)
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

// withPercentile returns ps with p added when missing, sorted.
func withPercentile(ps []float64, p float64) []float64 {
	if slices.Contains(ps, p) {
		return ps
	}
	out := append(slices.Clone(ps), p)
	slices.Sort(out)
	return out
}
