package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/plan/planplot"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/scenario"
)

const planUsage = `Usage: servesim plan [SCENARIO.yaml] [flags]

Finds the cheapest deployment of --model that serves --request-rate
requests/s of the workload under the SLO (--goodput, --slo-target): for
every GPU type, TP degree (and, for a mixture-of-experts model, data- and
expert-parallel setting), max-num-seqs, max-num-batched-tokens, chunked
prefill setting and precision of the search space it checks the shape and
the memory fit, bounds what the roofline allows, searches lambda* of one
replica, and then finds the fewest replicas behind the router that pass at
the target rate by simulating them together (the router's measured
balance, not a division). Candidates whose cheapest possible cost exceeds
a cost already found are pruned without changing the winner.

It prints the ranked table (cheapest first; ties reported), why each
rejected candidate failed, and the vllm serve and vllm bench serve command
lines of the winners; --format json or csv for machines, --plot FILE for
the cost/latency frontier (.svg or .png).

The workload, engine template and SLO flags are those of 'servesim bench';
--request-rate is the target rate. With a scenario file, the model, engine
template, workload and SLO come from the file, and its plan: block gives
the search space (see 'go doc github.com/servesim/servesim/scenario.Plan');
plan flags given on the command line override the block. Prices default
to a public on-demand list (see --prices); GPUs without a built-in price
need one.
`

type planOptions struct {
	gpus, prices, tps     string
	dps, eps              string
	profiles              string
	seqs, tokens, chunked string
	precisions            string
	pd, pps               string
	reps, boundaryReps    int
	maxReplicas, workers  int
	noPrune               bool
	frontier, budget      float64
	format, plot          string
	specK                 string // --spec-k (plan/spec.go)
}

func (p *planOptions) define(fs *flag.FlagSet) flagGroup {
	p.reps, p.boundaryReps, p.maxReplicas = 2, 3, 64
	fs.StringVar(&p.gpus, "gpus", "", "comma-separated GPU `names` to search (default: every GPU with a price)")
	fs.StringVar(&p.prices, "prices", "", "`gpu=dollars-per-hour,...` overriding or adding to the built-in prices ("+plan.PriceSource+")")
	fs.StringVar(&p.profiles, "gpu-profiles", "", "`gpu=FILE,...`: efficiency profiles (servesim calibrate output, cost.Profile YAML) per GPU type; default: each GPU's built-in profile rule")
	fs.StringVar(&p.tps, "tp-degrees", "1,2,4,8", "comma-separated tensor-parallel `degrees` to search")
	fs.StringVar(&p.dps, "dp-degrees", "", "comma-separated data-parallel `degrees` (vllm serve --data-parallel-size) to search for a mixture-of-experts model: D groups of TP GPUs stepping together (default: 1)")
	fs.StringVar(&p.eps, "expert-parallel-options", "", "comma-separated `on,off` --enable-expert-parallel settings to search for a mixture-of-experts model (default: off)")
	fs.StringVar(&p.seqs, "max-num-seqs-options", "", "comma-separated max-num-seqs `values` to search (default: --max-num-seqs)")
	fs.StringVar(&p.tokens, "max-num-batched-tokens-options", "", "comma-separated max-num-batched-tokens `values` to search (default: --max-num-batched-tokens)")
	fs.StringVar(&p.chunked, "chunked-prefill-options", "", "comma-separated `on,off` chunked-prefill settings to search (default: --enable-chunked-prefill)")
	fs.StringVar(&p.precisions, "precisions", "bf16,fp8", "comma-separated `precisions` to search (bf16, fp8)")
	fs.StringVar(&p.pps, "pipeline-parallel-options", "", "comma-separated --pipeline-parallel-size `values` to search: each colocated candidate also split into that many stages (default: 1, none)")
	fs.StringVar(&p.pd, "pd-options", "", "comma-separated disaggregated `shapes` to search beside colocated: xPyD (each pool's GPU and TP searched) or xPyD:GPU/TP:GPU/TP for the prefill and decode pools, * for searched (e.g. 2P1D:h100-sxm/4:a100-80gb/4); see docs/disaggregation.md")
	fs.Var(intValue{p: &p.reps, min: 1, max: maxProbeReplications, why: probeLimitWhy}, "replications", "runs per coarse lambda* probe")
	fs.Var(intValue{p: &p.boundaryReps, min: 1, max: 2 * maxProbeReplications, why: probeLimitWhy}, "boundary-replications", "runs per probe near lambda* and per replica-count check (at least --replications)")
	fs.Var(intValue{p: &p.maxReplicas, min: 1, max: 1024, why: "the most replicas one candidate may have"}, "max-replicas", "the most replicas a candidate may have")
	fs.Var(intValue{p: &p.workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
	fs.BoolVar(&p.noPrune, "no-prune", false, "simulate every candidate that fits (same winner; a fuller table)")
	fs.Var(nonNegativeFloat{&p.frontier, "prune at the cheapest cost"}, "frontier", "also keep deployments up to (1+X) times the cheapest cost, for the frontier (0: prune at the cheapest cost)")
	fs.Var(nonNegativeFloat{&p.budget, "no budget"}, "budget", "reject deployments dearer than this, dollars an hour (0: no budget)")
	fs.StringVar(&p.format, "format", "table", "output `format`: table, json or csv")
	fs.StringVar(&p.plot, "plot", "", "also draw the cost/latency frontier to `FILE`.svg or .png")
	fs.StringVar(&p.specK, "spec-k", "", "comma-separated num_speculative_tokens `values` to search (0: off) with --speculative-config's method and acceptance; the winner's crossover is reported (docs/speculative.md)")
	return flagGroup{"plan flags", []string{"gpus", "prices", "gpu-profiles", "tp-degrees", "dp-degrees", "expert-parallel-options", "max-num-seqs-options", "max-num-batched-tokens-options", "chunked-prefill-options", "precisions", "pipeline-parallel-options", "pd-options", "replications", "boundary-replications", "max-replicas", "no-prune", "frontier", "budget", "format", "plot", "workers", "spec-k"}}
}

// runPlan is `servesim plan`.
func runPlan(args []string, e *env) error {
	var o benchOptions
	var p planOptions
	var group flagGroup
	pos, err := parseBenchStyle("plan", planUsage, args, e, &o, func(fs *flag.FlagSet) flagGroup {
		group = p.define(fs)
		return group
	})
	if err != nil {
		return err
	}
	switch p.format {
	case "table", "json", "csv":
	default:
		return fmt.Errorf("plan: --format %q: want table, json or csv", p.format)
	}
	if p.plot != "" {
		if _, err := chart.Format(p.plot); err != nil {
			return fmt.Errorf("plan: --plot: %w", err)
		}
	}
	if p.boundaryReps < p.reps {
		return fmt.Errorf("plan: --boundary-replications %d must be >= --replications %d", p.boundaryReps, p.reps)
	}
	for _, f := range []string{"tensor-parallel-size", "tp", "replicas", "data-parallel-size", "dp", "enable-expert-parallel", "server", "pipeline-parallel-size"} {
		if o.set[f] {
			return fmt.Errorf("plan: --%s: the plan chooses the deployment (--tp-degrees, --dp-degrees, --expert-parallel-options, --pipeline-parallel-options, --pd-options, --gpus)", f)
		}
	}
	sc, err := capacityScenario(pos, &o, ownFlags(group))
	if err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	if sc.Plan != nil {
		p.fromScenario(sc.Plan, o.set)
	}
	if !sc.SLO.Set() {
		return errors.New("plan: no SLO to plan for: give --goodput ttft:MS tpot:MS (and --slo-target)")
	}
	if v := sc.Server; v.DataParallelSize > 1 || v.EnableExpertParallel {
		return errors.New("plan: server.data_parallel_size and server.enable_expert_parallel: the plan chooses the deployment (plan.data_parallel, plan.expert_parallel)")
	}
	eng, err := sc.EngineTemplate()
	if err != nil {
		return fmt.Errorf("plan: %s", benchFieldError(err))
	}
	w, err := sc.BuildWorkload()
	if err != nil {
		return fmt.Errorf("plan: %s", benchFieldError(err))
	}
	if w.Arrivals == nil {
		return errors.New("plan: a plan needs open-loop arrivals at a target rate (--request-rate)")
	}
	rate := w.Arrivals.MeanRate()
	if sc.Plan != nil && sc.Plan.Rate > 0 {
		rate = sc.Plan.Rate
	}
	if rate <= 0 || rate > 1e6 {
		return fmt.Errorf("plan: --request-rate %v: the target must be a finite rate > 0 (inf is a burst, not a load to plan for)", rate)
	}

	pl := plan.NewPlan(eng.Deployment.Model)
	// Knobs the user left unset are each candidate GPU's vllm serve default.
	if sc.Server.MaxNumSeqs == 0 {
		eng.MaxNumSeqs = 0
	}
	if sc.Server.MaxNumBatchedTokens == 0 {
		eng.MaxNumBatchedTokens = 0
	}
	pl.Engine = eng
	pl.ServedModelName = o.servedName
	pl.Router = batching.Router(sc.Server.Router)
	if pl.Router == "" {
		pl.Router = batching.LeastOutstanding
	}
	pl.MaxModelLen = eng.MaxModelLen
	pl.Objective = plan.Objective{Workload: w, Rate: rate, Criteria: capacity.DefaultCriteria(sc.SLO.Sim(), sc.SLO.Target)}
	pl.Search.Requests, pl.Search.Warmup = sc.Requests, sc.Warmup
	pl.Search.Seed = sc.Seed
	pl.Search.Replications, pl.Search.BoundaryReplications = p.reps, p.boundaryReps
	pl.Search.MaxReplicas, pl.Search.Workers = p.maxReplicas, p.workers
	pl.Search.NoPrune, pl.Search.Frontier, pl.Search.Budget = p.noPrune, p.frontier, p.budget
	if pl.Space, err = p.space(sc.Plan, o.set); err != nil {
		return fmt.Errorf("plan: %w", err)
	}

	prog := startProgress(e.stderr, e.tty && !o.quiet, "planning", 0) // a spinner with the elapsed time
	res, err := pl.Run()
	prog.Stop()
	if err != nil {
		file := ""
		if len(pos) == 1 {
			file = pos[0]
		}
		return fmt.Errorf("plan: %w", planFieldError(err, file, o.set))
	}
	if p.plot != "" {
		var b bytes.Buffer
		format, _ := chart.Format(p.plot)
		if err := planplot.Write(&b, res, format); err != nil {
			return fmt.Errorf("plan: --plot: %w", err)
		}
		if err := os.WriteFile(p.plot, b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("plan: --plot: %w", err)
		}
	}
	switch p.format {
	case "json":
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return fmt.Errorf("plan: %w", err)
		}
		_, err = e.stdout.Write(append(b, '\n'))
		return err
	case "csv":
		return res.WriteCSV(e.stdout)
	}
	var b bytes.Buffer
	if err := res.WriteTable(&b); err != nil {
		return fmt.Errorf("plan: %w", err)
	}
	// The table opens with the model, rate and SLO; the workload follows.
	head, rest, _ := bytes.Cut(b.Bytes(), []byte("\n"))
	fmt.Fprintf(e.stdout, "%s\nworkload: %s\n%s", head, workloadText(sc), rest)
	printPricedBy(e.stdout, pl.Space.GPUs)
	res.Speculative.WriteText(e.stdout)
	return nil
}

// fromScenario takes the plan: block's settings for every plan flag not
// given on the command line (set); its lists go to choices.
func (p *planOptions) fromScenario(b *scenario.Plan, set map[string]bool) {
	take := func(flagName string, has bool) bool { return has && !set[flagName] }
	if take("max-replicas", b.MaxReplicas > 0) {
		p.maxReplicas = b.MaxReplicas
	}
	if take("frontier", b.Frontier > 0) {
		p.frontier = b.Frontier
	}
	if take("budget", b.Budget > 0) {
		p.budget = b.Budget
	}
	if take("no-prune", b.NoPrune) {
		p.noPrune = true
	}
}

// yamlOfPlanFlag names the plan: key behind each list flag of servesim
// plan.
var yamlOfPlanFlag = map[string]string{
	"tp-degrees": "plan.tp", "dp-degrees": "plan.data_parallel", "expert-parallel-options": "plan.expert_parallel",
	"max-num-seqs-options": "plan.max_num_seqs", "max-num-batched-tokens-options": "plan.max_num_batched_tokens",
	"chunked-prefill-options": "plan.chunked_prefill", "max-replicas": "plan.max_replicas",
}

// planFieldError names the plan: key in an invalid-plan error about a
// space list (plan.Plan.Validate names Space's fields: tp, data_parallel,
// ...) that the scenario's plan: block gave, not a flag (set).
func planFieldError(err error, file string, set map[string]bool) error {
	if file == "" || !errors.Is(err, plan.ErrInvalid) {
		return err
	}
	msg, ok := strings.CutPrefix(err.Error(), plan.ErrInvalid.Error()+": ")
	if !ok {
		return err
	}
	for flagName, key := range yamlOfPlanFlag {
		field := strings.TrimPrefix(key, "plan.")
		if rest, ok := strings.CutPrefix(msg, field); ok && !set[flagName] && (rest == "" || strings.IndexByte("[: ", rest[0]) >= 0) {
			return fmt.Errorf("%s: %s%s", file, key, rest)
		}
	}
	return err
}

// choiceFlags names the flag and the plan: key of each field of
// plan.Choices.
var choiceFlags = map[string][2]string{
	"GPUs": {"gpus", "plan.gpus"}, "Prices": {"prices", "plan.prices"}, "Profiles": {"gpu-profiles", ""},
	"Precisions": {"precisions", "plan.precisions"},
}

// space builds the search space (plan.Choices.Space) from the plan flags
// given (set) and, for the others, the scenario's plan: block b (nil:
// none); a list neither gives keeps the plan's default.
func (p *planOptions) space(b *scenario.Plan, set map[string]bool) (plan.Space, error) {
	if b == nil {
		b = &scenario.Plan{}
	}
	c, err := p.choices(b, set)
	if err != nil {
		return plan.Space{}, err
	}
	s, err := c.Space()
	var ce *plan.ChoiceError
	if errors.As(err, &ce) {
		name := "--" + choiceFlags[ce.Field][0]
		if !set[choiceFlags[ce.Field][0]] && choiceFlags[ce.Field][1] != "" {
			name = choiceFlags[ce.Field][1]
		}
		return s, fmt.Errorf("%s: %w", name, ce.Err)
	}
	return s, err
}

// choices parses each plan flag given into its typed list, and takes the
// plan: block's list for each flag not given.
func (p *planOptions) choices(b *scenario.Plan, set map[string]bool) (plan.Choices, error) {
	c := plan.Choices{GPUs: b.GPUs, Prices: maps.Clone(b.Prices), TP: b.TP, DataParallel: b.DataParallel,
		ExpertParallel: b.ExpertParallel, MaxNumSeqs: b.MaxNumSeqs, MaxNumBatchedTokens: b.MaxNumBatchedTokens,
		ChunkedPrefill: b.ChunkedPrefill, Profiles: map[string]*cost.Profile{}}
	precisions := b.Precisions
	var err error
	if set["gpus"] {
		c.GPUs = nil
		for _, n := range strings.Split(p.gpus, ",") {
			if n = strings.TrimSpace(n); n != "" {
				c.GPUs = append(c.GPUs, n)
			}
		}
		if len(c.GPUs) == 0 {
			return c, errors.New("--gpus: no GPU to search")
		}
	}
	if p.prices != "" {
		extra, err := plan.ParsePrices(p.prices)
		if err != nil {
			return c, fmt.Errorf("--prices: %w", err)
		}
		if c.Prices == nil {
			c.Prices = map[string]float64{}
		}
		maps.Copy(c.Prices, extra)
	}
	for _, part := range strings.Split(p.profiles, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		gpu, file, ok := strings.Cut(part, "=")
		if !ok || gpu == "" || file == "" {
			return c, fmt.Errorf("--gpu-profiles: %q must look like gpu=FILE", part)
		}
		prof, err := cost.LoadProfile(file)
		if err == nil {
			err = prof.ForGPU(gpu)
		}
		if err != nil {
			return c, fmt.Errorf("--gpu-profiles %s: %w", gpu, err)
		}
		c.Profiles[gpu] = &prof
	}
	ints := []struct {
		flag    string
		to      *[]int
		lo, max int
	}{{"tp-degrees", &c.TP, 1, 1024}, {"max-num-seqs-options", &c.MaxNumSeqs, 1, 1 << 20},
		{"max-num-batched-tokens-options", &c.MaxNumBatchedTokens, 1, 1 << 30}, {"dp-degrees", &c.DataParallel, 1, batching.MaxDataParallel},
		{"pipeline-parallel-options", &c.PipelineParallel, 1, batching.MaxPipelineStages}}
	text := map[string]string{"tp-degrees": p.tps, "max-num-seqs-options": p.seqs, "max-num-batched-tokens-options": p.tokens, "dp-degrees": p.dps,
		"pipeline-parallel-options": p.pps}
	for _, f := range ints {
		if set[f.flag] || (len(*f.to) == 0 && text[f.flag] != "") {
			if *f.to, err = intList("--"+f.flag, text[f.flag], f.lo, f.max); err != nil {
				return c, err
			}
			continue
		}
		// A list from the plan: block has the flag's bounds, named by its key.
		for i, v := range *f.to {
			if v < f.lo || v > f.max {
				return c, fmt.Errorf("%s[%d]: %d is not a whole number in [%d, %d]", yamlOfPlanFlag[f.flag], i, v, f.lo, f.max)
			}
		}
	}
	for _, f := range []struct {
		flag, text string
		to         *[]bool
	}{{"chunked-prefill-options", p.chunked, &c.ChunkedPrefill}, {"expert-parallel-options", p.eps, &c.ExpertParallel}} {
		if set[f.flag] {
			if *f.to, err = onOffList("--"+f.flag, f.text); err != nil {
				return c, err
			}
		}
	}
	if set["pd-options"] {
		if c.Disaggregated, err = plan.ParsePDShapes(p.pd); err != nil {
			return c, fmt.Errorf("--pd-options: %w", err)
		}
	}
	field := "plan.precisions"
	if set["precisions"] || len(precisions) == 0 {
		field, precisions = "--precisions", strings.Split(p.precisions, ",")
	}
	for _, f := range precisions {
		pr, err := cost.ParsePrecision(strings.TrimSpace(f))
		if err != nil {
			return c, fmt.Errorf("%s: %q: a plan searches bf16 and fp8", field, f)
		}
		c.Precisions = append(c.Precisions, pr)
	}
	if p.specK != "" {
		if c.SpecK, err = intList("--spec-k", p.specK, 0, capacity.MaxSpecK); err != nil {
			return c, err
		}
	}
	return c, nil
}

// onOffList parses "on,off" (or true, false); "" is nil.
func onOffList(flagName, s string) ([]bool, error) {
	if s == "" {
		return nil, nil
	}
	var out []bool
	for _, f := range strings.Split(s, ",") {
		switch strings.TrimSpace(f) {
		case "on", "true":
			out = append(out, true)
		case "off", "false":
			out = append(out, false)
		default:
			return nil, fmt.Errorf("%s: %q: want on or off", flagName, f)
		}
	}
	return out, nil
}

// intList parses "1,2,4" with every value in [lo, hi].
func intList(flagName, s string, lo, hi int) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.Atoi(f)
		if err != nil || v < lo || v > hi {
			return nil, fmt.Errorf("%s: %q is not a whole number in [%d, %d]", flagName, f, lo, hi)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: is empty", flagName)
	}
	return out, nil
}
