// Package screen pre-screens tensor-parallel deployments before GPU hours
// are spent (docs/cost-model.md#tp-screening): for each candidate —
// Replicas replicas of TP=p behind a router — it applies the cost model's
// shape and memory checks, then runs the capacity search under one
// arrival process and SLO, and compares the candidates per GPU: λ* per
// GPU (the sustainable rate each card contributes) and per-card goodput
// G_card at a common rate.
//
// The rule it reports follows the reference article: when the model fits
// one card, TP is worth its cards only if its per-card capacity beats the
// replicas baseline on the same cards (or replicas cannot meet the
// per-request SLO at all); when it does not fit, take the smallest TP
// that fits and meets the SLO.
package screen

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/workload"
)

// ErrInvalid is wrapped by every configuration error of this package.
var ErrInvalid = errors.New("invalid screen")

// Candidate is one deployment: Replicas engines of TP GPUs each.
type Candidate struct {
	TP       int `json:"tp" yaml:"tp"`
	Replicas int `json:"replicas" yaml:"replicas"`
}

// GPUs returns TP × Replicas.
func (c Candidate) GPUs() int { return c.TP * c.Replicas }

// String returns "TP=p ×k".
func (c Candidate) String() string { return fmt.Sprintf("TP=%d x%d", c.TP, c.Replicas) }

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
	GPUs int
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
	for i, c := range s.Candidates {
		if c.TP < 1 || c.Replicas < 1 {
			return fmt.Errorf("%w: candidates[%d] tp %d and replicas %d must be >= 1", ErrInvalid, i, c.TP, c.Replicas)
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
	probe := s.search(s.Candidates[0], s.Engine)
	probe.Base.Server = standIn{}
	return probe.Validate()
}

// standIn is a valid server used only to validate search settings.
type standIn struct{}

func (standIn) Validate() error                        { return nil }
func (standIn) NewServer(*sim.Env) (sim.Server, error) { return nil, errors.New("stand-in") }

func (s Study) server(c Candidate, eng batching.Config) sim.ServerConfig {
	if c.Replicas == 1 {
		return eng
	}
	return batching.Cluster{Engine: eng, Replicas: c.Replicas, Router: s.Router}
}

func (s Study) search(c Candidate, eng batching.Config) capacity.Search {
	eng.Deployment.TP = c.TP
	return capacity.Search{
		Base:     sim.Config{Workload: s.Workload, Server: s.server(c, eng), Requests: s.Requests, Warmup: s.Warmup, SummaryOnly: s.SummaryOnly},
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
		eng := s.Engine
		eng.Deployment.TP = c.TP
		d := eng.Deployment
		shape, err := d.Shape()
		if err != nil {
			r.ShapeErr = err.Error()
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
			r.FitErr = err.Error()
			continue
		}
		r.Fits = true
		res, err := s.search(c, eng).Run()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		r.Search = res
		r.LowerPerGPU = res.Lower / float64(r.GPUs)
		r.UpperPerGPU = res.Upper / float64(r.GPUs)
		if s.CommonRate > 0 {
			if err := s.common(r, eng); err != nil {
				return nil, fmt.Errorf("%s: %w", c, err)
			}
		}
	}
	rep.Rows = rows
	return rep, nil
}

// common runs the candidate at CommonRate with the study's replications.
func (s Study) common(r *Row, eng batching.Config) error {
	arr, err := capacity.WithRate(s.Workload.Arrivals, s.CommonRate)
	if err != nil {
		return err
	}
	cfg := sim.Config{Workload: s.Workload, Server: s.server(r.Candidate, eng), Requests: s.Requests, Warmup: s.Warmup, SLO: s.Criteria.SLO, SummaryOnly: true}
	cfg.Workload.Arrivals = arr
	res, err := sim.Replicate(cfg, event.Seeds(s.Seed, s.Replications))
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
	if rep.FitsOneGPU {
		return "the model fits one GPU, so TP must beat replicas per card: " + perGPU
	}
	smallest := ok[0]
	for _, r := range ok[1:] {
		if r.TP < smallest.TP {
			smallest = r
		}
	}
	if smallest.TP == best.TP {
		return fmt.Sprintf("the model does not fit one GPU; the smallest TP that fits and meets the SLO is %d, and %s", smallest.TP, perGPU)
	}
	return fmt.Sprintf("the model does not fit one GPU; the smallest TP that fits and meets the SLO is %d (%s, lambda* >= %.2f req/s per GPU), while %s",
		smallest.TP, smallest.Candidate, smallest.LowerPerGPU, perGPU)
}
