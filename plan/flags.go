package plan

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/scenario"
)

// Flags are `servesim plan`'s own flags: the search space's lists as
// given (each parsed into Choices, over a scenario's plan: block), the
// search settings, and the output choices the command reads (Format,
// Plot). Define puts them on a flag set; Configure applies them to a Plan.
type Flags struct {
	gpus, prices, tps     string
	dps, eps              string
	profiles              string
	seqs, tokens, chunked string
	precisions            string
	pd, pps               string
	reps, boundaryReps    int
	maxReplicas, workers  int
	round                 int
	noPrune               bool
	frontier, budget      float64
	Format, Plot          string
	specK                 string // --spec-k (plan/spec.go)
}

// Define defines the flags on fs with their defaults and returns their
// help group.
func (p *Flags) Define(fs *flag.FlagSet) cliflag.Group {
	p.reps, p.boundaryReps, p.maxReplicas = 2, 3, 64
	p.round = DefaultSearch().Round
	fs.StringVar(&p.gpus, "gpus", "", "comma-separated GPU `names` to search (default: every GPU with a price)")
	fs.StringVar(&p.prices, "prices", "", "`gpu=dollars-per-hour,...` overriding or adding to the built-in prices ("+PriceSource+")")
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
	fs.Var(cliflag.Int{P: &p.reps, Min: 1, Max: capacity.MaxReplications, Why: capacity.MaxReplicationsWhy}, "replications", "runs per coarse lambda* probe")
	fs.Var(cliflag.Int{P: &p.boundaryReps, Min: 1, Max: 2 * capacity.MaxReplications, Why: capacity.MaxReplicationsWhy}, "boundary-replications", "runs per probe near lambda* and per replica-count check (at least --replications)")
	fs.Var(cliflag.Int{P: &p.maxReplicas, Min: 1, Max: 1024, Why: "the most replicas one candidate may have"}, "max-replicas", "the most replicas a candidate may have")
	fs.Var(cliflag.Int{P: &p.workers}, "workers", "simulations run at once (0: GOMAXPROCS); results do not depend on it")
	fs.BoolVar(&p.noPrune, "no-prune", false, "simulate every candidate that fits (same winner; a fuller table)")
	fs.Var(cliflag.Int{P: &p.round, Min: 1, Max: 1024, Why: "candidates taken at a time"}, "round", "candidates searched side by side before the cheapest cost found prunes the next ones (1: one at a time, the most pruning; same winner, a shorter table)")
	fs.Var(cliflag.NonNegativeFloat{P: &p.frontier, Zero: "prune at the cheapest cost"}, "frontier", "also keep deployments up to (1+X) times the cheapest cost, for the frontier (0: prune at the cheapest cost)")
	fs.Var(cliflag.NonNegativeFloat{P: &p.budget, Zero: "no budget"}, "budget", "reject deployments dearer than this, dollars an hour (0: no budget)")
	fs.StringVar(&p.Format, "format", "table", "output `format`: table, json or csv")
	fs.StringVar(&p.Plot, "plot", "", "also draw the cost/latency frontier to `FILE`.svg or .png")
	fs.StringVar(&p.specK, "spec-k", "", "comma-separated num_speculative_tokens `values` to search (0: off) with --speculative-config's method and acceptance; the winner's crossover is reported (docs/speculative.md)")
	return cliflag.Group{Title: "plan flags", Names: []string{"gpus", "prices", "gpu-profiles", "tp-degrees", "dp-degrees", "expert-parallel-options", "max-num-seqs-options", "max-num-batched-tokens-options", "chunked-prefill-options", "precisions", "pipeline-parallel-options", "pd-options", "replications", "boundary-replications", "max-replicas", "no-prune", "round", "frontier", "budget", "format", "plot", "workers", "spec-k"}}
}

// Check checks what the flags say together before a scenario is read:
// --boundary-replications at least --replications.
func (p *Flags) Check() error {
	if p.boundaryReps < p.reps {
		return fmt.Errorf("--boundary-replications %d must be >= --replications %d", p.boundaryReps, p.reps)
	}
	return nil
}

// Configure applies the flags given (the names in given) to pl: the
// search settings, and the search space of the scenario's plan: block
// (block, nil for none) with each list flag given in place of the
// block's, on the multi-node layout topology (server.topology or
// --topology; "" for none, Choices.Topology). A bad list is named by its
// flag when given, else by its plan: key.
func (p *Flags) Configure(pl *Plan, block *scenario.Plan, topology string, given map[string]bool) error {
	ps := &pl.Search
	ps.Replications, ps.BoundaryReplications, ps.Workers = p.reps, p.boundaryReps, p.workers
	if given["max-replicas"] {
		ps.MaxReplicas = p.maxReplicas
	}
	if given["frontier"] {
		ps.Frontier = p.frontier
	}
	if given["budget"] {
		ps.Budget = p.budget
	}
	if given["no-prune"] {
		ps.NoPrune = p.noPrune
	}
	if given["round"] {
		ps.Round = p.round
	}
	c, err := ChoicesOf(block)
	if err != nil {
		return err
	}
	c.Topology = topology
	flags, err := p.choices(given)
	if err != nil {
		return err
	}
	pl.Space, err = space(c.Over(flags), given)
	return err
}

// flagOfPlanField names the list flag of servesim plan behind each field
// of Plan's that a scenario's plan: block can give too.
var flagOfPlanField = map[string]string{
	"tp": "tp-degrees", "data_parallel": "dp-degrees", "expert_parallel": "expert-parallel-options",
	"max_num_seqs": "max-num-seqs-options", "max_num_batched_tokens": "max-num-batched-tokens-options",
	"chunked_prefill": "chunked-prefill-options", "max_replicas": "max-replicas",
}

// FlagFieldError places a field error of Plan.Validate about a list
// the scenario's plan: block gave (not a flag, set) under its key in the
// file (tp[1]).
func FlagFieldError(err error, file string, set map[string]bool) error {
	fe := fielderr.Of(err)
	if file == "" || fe == nil || !errors.Is(err, ErrInvalid) {
		return err
	}
	list, _, _ := strings.Cut(fe.Field, "[")
	if flagName, ok := flagOfPlanField[list]; !ok || set[flagName] {
		return err
	}
	cp := *fe
	cp.File, cp.Field, cp.Class = file, "plan."+fe.Field, ErrInvalid
	return &cp
}

// choiceFlags names the flag and the plan: key of each field of
// Choices.
var choiceFlags = map[string][2]string{
	"GPUs": {"gpus", "plan.gpus"}, "Prices": {"prices", "plan.prices"}, "Profiles": {"gpu-profiles", ""},
	"Precisions": {"precisions", "plan.precisions"}, "Topology": {"topology", "server.topology"},
}

// space resolves the choices c (Choices.Space), naming a bad
// choice by its flag when the command line gave it (set), else by its
// plan: key.
func space(c Choices, set map[string]bool) (Space, error) {
	s, err := c.Space()
	var ce *ChoiceError
	if errors.As(err, &ce) {
		name := "--" + choiceFlags[ce.Field][0]
		if !set[choiceFlags[ce.Field][0]] && choiceFlags[ce.Field][1] != "" {
			name = choiceFlags[ce.Field][1]
		}
		return s, fmt.Errorf("%s: %w", name, ce.Err)
	}
	return s, err
}

// choices parses each plan flag given (set) into its typed list; a list
// not given stays nil.
func (p *Flags) choices(set map[string]bool) (Choices, error) {
	var c Choices
	var err error
	if set["gpus"] {
		c.GPUs = []string{}
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
		if c.Prices, err = ParsePrices(p.prices); err != nil {
			return c, fmt.Errorf("--prices: %w", err)
		}
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
		if c.Profiles == nil {
			c.Profiles = map[string]*cost.Profile{}
		}
		c.Profiles[gpu] = &prof
	}
	for _, f := range []struct {
		flag, text string
		to         *[]int
		lo, max    int
	}{{"tp-degrees", p.tps, &c.TP, 1, scenario.MaxPlanTP}, {"max-num-seqs-options", p.seqs, &c.MaxNumSeqs, 1, scenario.MaxPlanSeqs},
		{"max-num-batched-tokens-options", p.tokens, &c.MaxNumBatchedTokens, 1, scenario.MaxPlanTokens},
		{"dp-degrees", p.dps, &c.DataParallel, 1, batching.MaxDataParallel},
		{"pipeline-parallel-options", p.pps, &c.PipelineParallel, 1, batching.MaxPipelineStages}} {
		if set[f.flag] {
			if *f.to, err = cliflag.IntList("--"+f.flag, f.text, f.lo, f.max); err != nil {
				return c, err
			}
		}
	}
	for _, f := range []struct {
		flag, text string
		to         *[]bool
	}{{"chunked-prefill-options", p.chunked, &c.ChunkedPrefill}, {"expert-parallel-options", p.eps, &c.ExpertParallel}} {
		if set[f.flag] {
			if *f.to, err = cliflag.OnOffList("--"+f.flag, f.text); err != nil {
				return c, err
			}
		}
	}
	if set["pd-options"] {
		if c.Disaggregated, err = ParsePDShapes(p.pd); err != nil {
			return c, fmt.Errorf("--pd-options: %w", err)
		}
	}
	if p.specK != "" {
		if c.SpecK, err = cliflag.IntList("--spec-k", p.specK, 0, capacity.MaxSpecK); err != nil {
			return c, err
		}
	}
	if set["precisions"] {
		for _, f := range strings.Split(p.precisions, ",") {
			pr, err := cost.ParsePrecision(strings.TrimSpace(f))
			if err != nil {
				return c, fmt.Errorf("--precisions: %q: a plan searches bf16 and fp8", f)
			}
			c.Precisions = append(c.Precisions, pr)
		}
	}
	return c, nil
}
