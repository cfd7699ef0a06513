// Package screen pre-screens tensor-parallel deployments before GPU hours
// are spent (docs/cost-model.md#tp-screening): for each candidate —
// Replicas replicas of TP=p behind a router, or, for a mixture-of-experts
// model, an engine of DP data-parallel groups of TP=p with or without
// expert parallelism (ParseCandidates reads "4x1" and "tp4dp2ep") — it
// applies the cost model's shape and memory checks, then runs the
// capacity search under one arrival process and SLO, and compares the
// candidates per GPU: λ* per GPU (the sustainable rate each card
// contributes) and per-card goodput G_card at a common rate.
//
// The rule it reports follows the reference article: when the model fits
// one card, TP (or an engine of several GPUs) is worth its cards only if
// its per-card capacity beats the replicas baseline on the same cards (or
// replicas cannot meet the per-request SLO at all); when it does not fit,
// take the smallest TP (engine) that fits and meets the SLO.
//
// Before any simulation, TPModel is the ideal analytic screen of
// docs/cost-model.md#tp-speed-up: the speed-up of TP=p at T active tokens
// and the token threshold T* above which TP=p can pay for its all-reduces
// at all (ReferenceTPModel holds the assumptions of
// docs/reference-numbers.md#tp-speed-up-table).
package screen

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/workload"
)

// ErrInvalid is wrapped by every configuration error of this package.
var ErrInvalid = errors.New("invalid screen")

// MaxEngines bounds a candidate's engines behind the router (its replicas,
// times a dense model's data-parallel engines): each is simulated with its
// own scheduler and KV pool, as scenario.MaxReplicas bounds a run's.
const MaxEngines = 1024

// Study screens candidates for one model on one GPU type.
type Study struct {
	// Engine is the replica template: deployment and scheduler knobs. Its
	// Deployment.TP is set from each candidate.
	Engine batching.Config
	// Router spreads requests over a candidate's replicas.
	Router batching.Router
	// Candidates to compare.
	Candidates []Candidate
	// Workload is the open-loop stream (Poisson, Gamma or Constant
	// arrivals; the rate is set by the search) and lengths.
	Workload workload.Workload
	// Requests and Warmup per run.
	Requests, Warmup int
	// Criteria, Seed, Replications, BoundaryReplications, Start and
	// Precision configure each candidate's capacity search (see
	// capacity.Search); every candidate sees the same seeds (paired).
	Criteria                           capacity.Criteria
	Seed                               uint64
	Replications, BoundaryReplications int
	Start, Precision                   float64
	// CommonRate, when > 0, is a rate every candidate also runs at, to
	// report G_card and attainment side by side.
	CommonRate float64
	// Workers bounds parallel runs (0 means GOMAXPROCS).
	Workers int
	// SummaryOnly runs the searches in summary mode (sim.Config's
	// SummaryOnly): memory follows the requests in the system. Verdicts
	// count requests, so the report is the same either way; the
	// CommonRate runs always keep only summaries.
	SummaryOnly bool
}

// Row is one candidate's screen.
type Row struct {
	Candidate
	// GPUs is the candidate's GPUs, EngineGPUs those of one engine: TP,
	// or TP·DP for a mixture-of-experts model's data-parallel groups.
	GPUs, EngineGPUs int
	// Shape is the per-rank split; ShapeErr says why it is impossible.
	Shape    cost.Shape
	ShapeErr string
	// Memory is the per-rank budget under the deployment's memory settings;
	// Fits reports whether the engine can run (weights leave a KV pool
	// that holds a step's tokens), FitErr why not.
	Memory cost.Memory
	Fits   bool
	FitErr string
	// Search is the capacity search's result (nil when the candidate is
	// impossible or does not fit).
	Search *capacity.Result
	// LowerPerGPU and UpperPerGPU are the λ* bracket divided by GPUs.
	LowerPerGPU, UpperPerGPU float64
	// At CommonRate: the minimum attainment and mean per-card goodput
	// (output tokens of good requests per second per GPU) over runs.
	CommonAttainment, CommonGoodputPerGPU float64
}

// Feasible reports whether the candidate can be deployed at all.
func (r Row) Feasible() bool { return r.ShapeErr == "" && r.Fits }

// Validate checks the study's settings.
func (s Study) Validate() error {
	if len(s.Candidates) == 0 {
		return fmt.Errorf("%w: no candidates", ErrInvalid)
	}
	moe := s.Engine.Deployment.Model.Experts > 0
	for i, c := range s.Candidates {
		switch {
		case c.TP < 1 || c.Replicas < 1:
			return fmt.Errorf("%w: candidates[%d] tp %d and replicas %d must be >= 1", ErrInvalid, i, c.TP, c.Replicas)
		case c.TP > MaxCandidateGPUs:
			return fmt.Errorf("%w: candidates[%d] tp %d exceeds %d", ErrInvalid, i, c.TP, MaxCandidateGPUs)
		case c.Replicas > MaxEngines:
			return fmt.Errorf("%w: candidates[%d] replicas %d exceed %d", ErrInvalid, i, c.Replicas, MaxEngines)
		case c.DP < 0 || c.DP > batching.MaxDataParallel:
			return fmt.Errorf("%w: candidates[%d] dp %d must be in [0, %d] (0 or 1: none)", ErrInvalid, i, c.DP, batching.MaxDataParallel)
		case c.EP && !moe:
			return fmt.Errorf("%w: candidates[%d] ep: expert parallelism needs a mixture-of-experts model; %s is dense", ErrInvalid, i, s.Engine.Deployment.Model.Name)
		case !moe && c.Replicas*max(c.DP, 1) > MaxEngines: // both bounded above: no overflow
			return fmt.Errorf("%w: candidates[%d] replicas %d of dp %d make %d engines (a dense model's data-parallel engines are replicas), more than %d", ErrInvalid, i, c.Replicas, max(c.DP, 1), c.Replicas*max(c.DP, 1), MaxEngines)
		case moe && c.DP > 1 && c.Replicas > batching.MaxDataParallel/c.DP:
			return fmt.Errorf("%w: candidates[%d] replicas %d of dp %d make %d data-parallel groups, more than %d", ErrInvalid, i, c.Replicas, c.DP, c.Replicas*c.DP, batching.MaxDataParallel)
		case moe && c.DP > 1 && c.Replicas > 1 && s.Router == batching.PrefixAware:
			return fmt.Errorf("%w: candidates[%d]: router %q over replicas of a data-parallel deployment is not modelled; use %q or %q", ErrInvalid, i, s.Router, batching.RoundRobin, batching.LeastOutstanding)
		}
	}
	if !(s.CommonRate >= 0) || math.IsInf(s.CommonRate, 1) {
		return fmt.Errorf("%w: common_rate %v must be a finite number >= 0", ErrInvalid, s.CommonRate)
	}
	if err := s.Criteria.Validate(); err != nil {
		return err
	}
	if _, err := capacity.WithRate(s.Workload.Arrivals, 1); err != nil {
		return err
	}
	// The search settings, checked on a stand-in server: each candidate's
	// own engine is checked when it is screened.
	probe := s.search(s.Candidates[0])
	probe.Base.Server = standIn{}
	return probe.Validate()
}

// standIn is a valid server used only to validate search settings.
type standIn struct{}

func (standIn) Validate() error                        { return nil }
func (standIn) NewServer(*sim.Env) (sim.Server, error) { return nil, errors.New("stand-in") }

// server returns the candidate's server: its engine, or its engines
// behind the study's router.
func (s Study) server(c Candidate) sim.ServerConfig {
	eng, replicas := c.engine(s.Engine)
	if replicas == 1 {
		return eng
	}
	return batching.Cluster{Engine: eng, Replicas: replicas, Router: s.Router}
}

func (s Study) search(c Candidate) capacity.Search {
	return capacity.Search{
		Base:     sim.Config{Workload: s.Workload, Server: s.server(c), Requests: s.Requests, Warmup: s.Warmup, SummaryOnly: s.SummaryOnly},
		Criteria: s.Criteria, Seed: s.Seed,
		Replications: s.Replications, BoundaryReplications: s.BoundaryReplications,
		Start: s.Start, Precision: s.Precision, Workers: s.Workers,
	}
}

// Report is a study's outcome.
type Report struct {
	// Rows holds one screen per candidate, in order.
	Rows []Row
	// FitsOneGPU reports whether the model fits a single GPU (TP 1),
	// whether or not TP 1 is a candidate.
	FitsOneGPU bool
}

// Run screens every candidate, in order.
func (s Study) Run() (*Report, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	one := s.Engine
	one.Deployment.TP = 1
	_, err := one.Pool()
	rep := &Report{FitsOneGPU: err == nil}
	rows := make([]Row, len(s.Candidates))
	for i, c := range s.Candidates {
		r := &rows[i]
		r.Candidate, r.GPUs = c, c.GPUs()
		eng, _ := c.engine(s.Engine)
		r.EngineGPUs = eng.Deployment.GPUs()
		d := eng.Deployment
		shape, err := d.Shape()
		if err == nil {
			// The data- and expert-parallel split: the experts over TP·DP/EP
			// ranks and EP ranks, which the TP split alone does not check.
			err = d.Validate()
		}
		if err != nil {
			r.ShapeErr = problemLines(err)
			continue
		}
		r.Shape = shape
		mem, err := d.Memory(eng.BlockSize)
		if err != nil && !errors.Is(err, cost.ErrDoesNotFit) {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		r.Memory = mem
		// The engine decides: its pool honours kv_cache_memory and
		// kv_blocks, and must hold one step's tokens.
		if err := eng.Validate(); err != nil {
			r.FitErr = fitReason(err)
			continue
		}
		r.Fits = true
		res, err := s.search(c).Run()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		r.Search = res
		r.LowerPerGPU = res.Lower / float64(r.GPUs)
		r.UpperPerGPU = res.Upper / float64(r.GPUs)
		if s.CommonRate > 0 {
			if err := s.common(r); err != nil {
				return nil, fmt.Errorf("%s: %w", c, err)
			}
		}
	}
	rep.Rows = rows
	return rep, nil
}

// common runs the candidate at CommonRate with the study's replications.
func (s Study) common(r *Row) error {
	arr, err := capacity.WithRate(s.Workload.Arrivals, s.CommonRate)
	if err != nil {
		return err
	}
	cfg := sim.Config{Workload: s.Workload, Server: s.server(r.Candidate), Requests: s.Requests, Warmup: s.Warmup, SLO: s.Criteria.SLO, SummaryOnly: true}
	cfg.Workload.Arrivals = arr
	res, err := jobs.Replicate(cfg, event.Seeds(s.Seed, s.Replications))
	if err != nil {
		return err
	}
	r.CommonAttainment = math.Inf(1)
	for _, x := range res {
		r.CommonAttainment = math.Min(r.CommonAttainment, x.Attainment)
		r.CommonGoodputPerGPU += x.GoodputPerGPU / float64(len(res))
	}
	return nil
}

// Verdict states the recommendation the report supports, with its reason.
//
// When the model fits one GPU, TP must earn its cards: candidates are
// ranked by the lower end of λ* per GPU, and the best wins outright only if
// that lower end beats every other candidate's upper end (else the brackets
// overlap and the verdict says so). When it does not fit, the smallest TP
// that fits and meets the SLO at some rate is the default, and the verdict
// adds which candidate sustains the most per GPU when that is another.
// With data-parallel groups among the candidates the rule is stated for
// engines: the smallest is the one of fewest GPUs (TP·DP).
func (rep *Report) Verdict() string {
	var ok []Row
	for _, r := range rep.Rows {
		if r.Feasible() && r.Search != nil && r.Search.Lower > 0 {
			ok = append(ok, r)
		}
	}
	if len(ok) == 0 {
		return "no candidate fits and meets the SLO at any rate searched"
	}
	best := ok[0]
	for _, r := range ok[1:] {
		if r.LowerPerGPU > best.LowerPerGPU {
			best = r
		}
	}
	var overlaps []string
	for _, r := range ok {
		if r.Candidate != best.Candidate && r.UpperPerGPU > best.LowerPerGPU {
			overlaps = append(overlaps, r.String())
		}
	}
	perGPU := fmt.Sprintf("%s sustains the most per GPU, lambda* >= %.2f req/s per GPU", best, best.LowerPerGPU)
	switch {
	case len(overlaps) > 0:
		perGPU += ", but its bracket overlaps " + strings.Join(overlaps, ", ") + ": refine the search or measure"
	case len(ok) > 1:
		perGPU += ", above every other candidate's bracket"
	}
	// The rule speaks of TP while every engine is one TP group, of engines
	// once data-parallel groups are among them.
	groups := false
	for _, r := range ok {
		groups = groups || r.EngineGPUs != r.TP
	}
	if rep.FitsOneGPU {
		if groups {
			return "the model fits one GPU, so an engine of several GPUs must beat replicas per card: " + perGPU
		}
		return "the model fits one GPU, so TP must beat replicas per card: " + perGPU
	}
	smallest := ok[0]
	for _, r := range ok[1:] {
		if r.EngineGPUs < smallest.EngineGPUs {
			smallest = r
		}
	}
	what, size := "TP", fmt.Sprint(smallest.TP)
	if groups {
		what, size = "engine", fmt.Sprintf("%d GPUs", smallest.EngineGPUs)
	}
	if smallest.EngineGPUs == best.EngineGPUs {
		return fmt.Sprintf("the model does not fit one GPU; the smallest %s that fits and meets the SLO is %s, and %s", what, size, perGPU)
	}
	return fmt.Sprintf("the model does not fit one GPU; the smallest %s that fits and meets the SLO is %s (%s, lambda* >= %.2f req/s per GPU), while %s",
		what, size, smallest.Candidate, smallest.LowerPerGPU, perGPU)
}
