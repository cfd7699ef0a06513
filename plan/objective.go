package plan

import (
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/workload"
)

// ErrInvalid is wrapped by every configuration error of this package.
var ErrInvalid = errors.New("invalid plan")

// fieldErr returns an ErrInvalid error rejecting one field's value: a
// *fielderr.Error (field, value, limit) behind "invalid plan: ".
func fieldErr(field string, value any, limit string, args ...any) error {
	return fmt.Errorf("%w: %w", ErrInvalid, fielderr.New(field, value, limit, args...))
}

// Objective is what a deployment must do: serve Workload at Rate requests
// per second under Criteria.
//
// Percentile objectives map onto Criteria exactly: "TTFT p99 ≤ 2 s" holds
// if and only if at least 99% of requests have TTFT ≤ 2 s, so it is the
// per-request bound SLO.TTFT = 2 with attainment Target = 0.99. Several
// bounds at one percentile ("TTFT p99 ≤ 2 s and TPOT p99 ≤ 50 ms") become
// one joint objective: at least 99% of requests meet every bound at once.
// That implies each percentile bound and is slightly stricter than their
// conjunction (a request may miss one bound and another request the
// other); it is what vLLM's --goodput counts. ITL, pooled over tokens
// rather than requests, has no per-request bound; the plan reports its
// p50 and p99 at the target rate.
type Objective struct {
	// Workload is the open-loop traffic: its arrival process must set its
	// rate (workload.RateSetter: Poisson, Gamma, Constant), and gets Rate
	// in every run at the target and each probed rate of the λ* search.
	// Lengths may be any distribution or trace; a max_concurrency cap
	// applies as in `vllm bench serve`.
	Workload workload.Workload
	// Rate is the target rate, requests per second (> 0, finite).
	Rate float64
	// Criteria is the acceptance rule of one run (capacity.Criteria):
	// per-request bounds, the attainment q, the failure and send-rate
	// tolerances, no sustained queue growth.
	Criteria capacity.Criteria
}

// Validate checks the rate, the criteria and that the workload's arrival
// process takes a rate.
func (o Objective) Validate() error {
	if !(o.Rate > 0) || math.IsInf(o.Rate, 1) {
		return fmt.Errorf("%w: rate %v must be a finite number of requests per second > 0", ErrInvalid, o.Rate)
	}
	if err := o.Criteria.Validate(); err != nil {
		return err
	}
	w, err := o.workload()
	if err != nil {
		return err
	}
	if err := w.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return nil
}

// workload returns the workload at the target rate.
func (o Objective) workload() (workload.Workload, error) {
	w := o.Workload
	if w.Closed() {
		return w, fmt.Errorf("%w: the workload is a closed loop; a plan needs an open loop at a target rate", ErrInvalid)
	}
	arr, err := capacity.WithRate(w.Arrivals, o.Rate)
	if err != nil {
		return w, err
	}
	w.Arrivals = arr
	return w, nil
}

// Search is how the planner searches: how much it simulates, how it
// prunes, how wide it runs.
type Search struct {
	// Requests and Warmup are the requests of one run of one replica,
	// warm-up included, and the warm-up; a run of k replicas at the target
	// rate simulates k times as many, so that it spans the same simulated
	// time as a one-replica run at 1/k of the rate.
	Requests int `json:"requests" yaml:"requests"`
	Warmup   int `json:"warmup" yaml:"warmup"`
	// Replications is the number of runs per coarse probe of the λ*
	// search; BoundaryReplications the number per probe near λ* and per
	// check of a replica count at the target (≥ Replications; 0 means
	// Replications). Run r has seed event.ReplicationSeed(Seed, r) in every
	// probe and check of every candidate: candidates are compared on the
	// same random numbers.
	Replications         int `json:"replications" yaml:"replications"`
	BoundaryReplications int `json:"boundary_replications,omitempty" yaml:"boundary_replications,omitempty"`
	// Precision is the relative width at which the λ* search stops (> 0).
	// λ* only proposes the first replica count; the count is then checked
	// at the target rate, so a coarse λ* costs a check or two, not the
	// answer.
	Precision float64 `json:"precision" yaml:"precision"`
	// Seed derives the replication seeds.
	Seed uint64 `json:"seed" yaml:"seed"`
	// MaxReplicas caps the replicas of one candidate (≥ 1); the λ* search
	// probes down to a 16th of Rate/MaxReplicas.
	MaxReplicas int `json:"max_replicas" yaml:"max_replicas"`
	// Round is the number of candidates taken at a time (≥ 1): their λ*
	// searches run side by side, then their replica counts step in
	// lockstep, the cutoff falling after each step; the next round is
	// pruned against it. Rounds fix the order of evaluation whatever the
	// parallelism, so the result does not depend on GOMAXPROCS or Workers.
	Round int `json:"round" yaml:"round"`
	// Workers bounds the parallel runs (0 means GOMAXPROCS).
	Workers int `json:"workers,omitempty" yaml:"workers,omitempty"`
	// NoPrune turns pruning off: every candidate that passes its screen is
	// simulated to its replica count. The winner is the same (see Solve);
	// the table and frontier then cover every candidate.
	NoPrune bool `json:"no_prune,omitempty" yaml:"no_prune,omitempty"`
	// Frontier, when > 0, prunes against (1+Frontier) times the cheapest
	// cost found instead of the cheapest cost itself, so that the table
	// and the Pareto frontier also show the deployments up to that much
	// dearer (and faster) than the winner; the winner is the same. 0.5
	// keeps everything within 1.5 times the cheapest.
	Frontier float64 `json:"frontier,omitempty" yaml:"frontier,omitempty"`
	// Budget, when > 0, is the most a deployment may cost, dollars an hour:
	// dearer candidates are rejected as TooExpensive.
	Budget float64 `json:"budget,omitempty" yaml:"budget,omitempty"`
	// Slack widens a Screener's MaxRate before it bounds the replica count
	// from below (kmin = ⌈Rate/(MaxRate·(1+Slack))⌉), a margin for finite
	// runs, which can pass a little above a replica's steady-state
	// capacity (≥ 0; 0 means DefaultSlack).
	Slack float64 `json:"slack,omitempty" yaml:"slack,omitempty"`
	// Progress, if set, is called after each round with the candidates
	// settled so far and their total.
	Progress func(done, total int) `json:"-" yaml:"-"`
}

// DefaultSlack is the Slack a Search uses when it is 0.
const DefaultSlack = 0.25

// DefaultSearch returns settings that screen a few hundred LLM candidates
// in seconds: 1,500 requests a run (150 warm-up), 2 replications per
// coarse probe and 3 near λ* and at the target, λ* to 10%, at most 64
// replicas, rounds of 8 candidates, seed 1.
func DefaultSearch() Search {
	return Search{Requests: 1500, Warmup: 150, Replications: 2, BoundaryReplications: 3,
		Precision: 0.1, Seed: 1, MaxReplicas: 64, Round: 8}
}

// Validate checks the settings and names the first bad one.
func (s Search) Validate() error {
	switch {
	case s.Requests < 1:
		return fieldErr("requests", s.Requests, "must be >= 1")
	case s.Warmup < 0 || s.Warmup >= s.Requests:
		return fieldErr("warmup", s.Warmup, "must be in [0, requests %d)", s.Requests)
	case s.Replications < 1 || s.Replications > capacity.MaxReplications:
		return fieldErr("replications", s.Replications, "must be in [1, %d] (capacity.MaxReplications)", capacity.MaxReplications)
	case s.BoundaryReplications != 0 && s.BoundaryReplications < s.Replications:
		return fieldErr("boundary_replications", s.BoundaryReplications, "must be >= replications %d", s.Replications)
	case s.BoundaryReplications > 2*capacity.MaxReplications:
		return fieldErr("boundary_replications", s.BoundaryReplications, "must be at most %d, twice capacity.MaxReplications", 2*capacity.MaxReplications)
	case !(s.Precision >= 1e-6) || math.IsInf(s.Precision, 1):
		return fieldErr("precision", s.Precision, "must be a finite number >= 1e-6")
	case s.MaxReplicas < 1:
		return fieldErr("max_replicas", s.MaxReplicas, "must be >= 1")
	case s.Round < 1:
		return fieldErr("round", s.Round, "must be >= 1")
	case s.Workers < 0 || s.Workers > jobs.MaxWorkers:
		return fieldErr("workers", s.Workers, "must be from 0 (GOMAXPROCS) to %d", jobs.MaxWorkers)
	case !(s.Budget >= 0) || math.IsInf(s.Budget, 1):
		return fieldErr("budget", s.Budget, "must be a finite number of dollars an hour >= 0")
	case !(s.Frontier >= 0) || math.IsInf(s.Frontier, 1):
		return fieldErr("frontier", s.Frontier, "must be a finite number >= 0")
	case !(s.Slack >= 0) || math.IsInf(s.Slack, 1):
		return fieldErr("slack", s.Slack, "must be a finite number >= 0")
	}
	return nil
}

func (s Search) boundary() int {
	if s.BoundaryReplications == 0 {
		return s.Replications
	}
	return s.BoundaryReplications
}

func (s Search) slack() float64 {
	if s.Slack == 0 {
		return DefaultSlack
	}
	return s.Slack
}
