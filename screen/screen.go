// Package screen pre-screens tensor-parallel deployments before GPU hours
// are spent (SPEC §5): for each candidate — Replicas replicas of TP=p
// behind a router — it applies the cost model's shape and memory checks,
// then runs the capacity search under one arrival process and SLO, and
// compares the candidates per GPU: λ* per GPU (the sustainable rate each
// card contributes) and per-card goodput G_card at a common rate.
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
	// Engine is the replica template: model, GPU and scheduler knobs. Its
	// TensorParallelSize is set from each candidate.
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
}

// Row is one candidate's screen.
type Row struct {
	Candidate
	GPUs int
	// Shape is the per-rank split; ShapeErr says why it is impossible.
	Shape    cost.Shape
	ShapeErr string
	// Memory is the per-rank budget; Fits reports whether a KV pool is left.
	Memory cost.Memory
	Fits   bool
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
	eng.TensorParallelSize = c.TP
	return capacity.Search{
		Base:     sim.Config{Workload: s.Workload, Server: s.server(c, eng), Requests: s.Requests, Warmup: s.Warmup},
		Criteria: s.Criteria, Seed: s.Seed,
		Replications: s.Replications, BoundaryReplications: s.BoundaryReplications,
		Start: s.Start, Precision: s.Precision, Workers: s.Workers,
	}
}

// Run screens every candidate, in order.
func (s Study) Run() ([]Row, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	rows := make([]Row, len(s.Candidates))
	for i, c := range s.Candidates {
		r := &rows[i]
		r.Candidate, r.GPUs = c, c.GPUs()
		eng := s.Engine
		eng.TensorParallelSize = c.TP
		d := eng.Deployment()
		shape, err := d.Shape()
		if err != nil {
			r.ShapeErr = err.Error()
			continue
		}
		r.Shape = shape
		util := eng.GPUMemoryUtilization
		if util == 0 {
			util = batching.DefaultGPUMemoryUtilization
		}
		mem, err := d.Memory(util, eng.BlockSize)
		r.Memory, r.Fits = mem, err == nil && mem.Fits
		if err != nil && !errors.Is(err, cost.ErrDoesNotFit) {
			return nil, fmt.Errorf("%s: %w", c, err)
		}
		if !r.Fits {
			continue
		}
		if err := eng.Validate(); err != nil {
			// Fits, but the pool is too small for the scheduler's budget.
			r.Fits = false
			r.ShapeErr = err.Error()
			continue
		}
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
	return rows, nil
}

// common runs the candidate at CommonRate with the study's replications.
func (s Study) common(r *Row, eng batching.Config) error {
	arr, err := capacity.WithRate(s.Workload.Arrivals, s.CommonRate)
	if err != nil {
		return err
	}
	cfg := sim.Config{Workload: s.Workload, Server: s.server(r.Candidate, eng), Requests: s.Requests, Warmup: s.Warmup, SLO: s.Criteria.SLO, SummaryOnly: true}
	cfg.Workload.Arrivals = arr
	res, err := sim.Replicate(cfg, sim.Seeds(s.Seed, s.Replications))
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

// Verdict states the recommendation the rows support, with its reason.
// Candidates are ranked by the lower end of λ* per GPU (the conservative
// end); a candidate wins only if its lower end beats the others' upper
// ends — otherwise the brackets overlap and the verdict says so.
func Verdict(rows []Row) string {
	var feasible []Row
	fitsOne := false
	for _, r := range rows {
		if r.Feasible() && r.Search != nil && r.Search.Lower > 0 {
			feasible = append(feasible, r)
		}
		if r.TP == 1 && r.Fits {
			fitsOne = true
		}
	}
	if len(feasible) == 0 {
		return "no candidate fits and meets the SLO at any rate searched"
	}
	best := feasible[0]
	for _, r := range feasible[1:] {
		if r.LowerPerGPU > best.LowerPerGPU {
			best = r
		}
	}
	var overlaps []string
	for _, r := range feasible {
		if r.Candidate != best.Candidate && r.UpperPerGPU > best.LowerPerGPU {
			overlaps = append(overlaps, r.String())
		}
	}
	var b strings.Builder
	if fitsOne {
		fmt.Fprintf(&b, "the model fits one GPU, so TP must beat replicas per card: ")
	} else {
		fmt.Fprintf(&b, "the model does not fit one GPU; among the deployments that fit: ")
	}
	fmt.Fprintf(&b, "%s sustains the most per GPU, lambda* >= %.2f req/s per GPU", best, best.LowerPerGPU)
	if len(overlaps) > 0 {
		fmt.Fprintf(&b, ", but its bracket overlaps %s: refine the search or measure", strings.Join(overlaps, ", "))
	} else if len(feasible) > 1 {
		fmt.Fprintf(&b, ", above every other candidate's bracket")
	}
	return b.String()
}
