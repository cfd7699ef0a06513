package plan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/workload"
)

// screenSample is the number of requests a Demand holds.
const screenSample = 4096

// lowRateFactor: the λ* search probes down to Rate/(lowRateFactor ×
// MaxReplicas).
const lowRateFactor = 16

// Solve finds the cheapest candidate that meets the objective, and says
// why every other one did not win.
//
//  1. Screen (Screener candidates only, in parallel, no simulation): reject
//     what cannot be deployed (Invalid, DoesNotFit) or cannot meet the SLO
//     at any load (Unreachable: the latency floor misses it), and take the
//     throughput roofline MaxRate. k replicas serve at most k·MaxRate, so
//     a candidate needs at least kmin = ⌈Rate/(MaxRate·(1+Slack))⌉
//     replicas and costs at least kmin·GPUs·price: its cost lower bound.
//  2. Order the screened candidates by that bound (then index) and take
//     them in rounds of Search.Round. A candidate whose bound exceeds the
//     cutoff — the cheapest cost found so far that meets the SLO (times
//     1+Frontier), and the Budget — is rejected as TooExpensive without a
//     run.
//  3. λ*: the bracketed capacity search of one replica (capacity.Search,
//     up to Rate, down to Rate/(16·MaxReplicas)) for the round's
//     candidates side by side. A replica that fails even at the lowest
//     rate is Unreachable.
//  4. The replica count: k0 = max(kmin, ⌈Rate/λ*⌉) replicas behind the
//     router are run at the target rate (BoundaryReplications runs, all
//     must pass), then the count gallops down while it passes, or up
//     (doubling steps) until it does, and the bracket is bisected to the
//     fewest replicas that pass: the router's measured balance decides,
//     not a division (replicas behind a least-outstanding router often
//     sustain more than k·λ*). The round's candidates take their steps in
//     lockstep, one count each a step, all runs of a step in parallel;
//     after each step the cutoff drops to the cheapest count seen to pass,
//     and a candidate whose next count costs more — whose fewest
//     possible replicas cost more — is rejected as TooExpensive.
//  5. Rank the candidates that passed by cost an hour (then p99 TTFT, p99
//     TPOT, index); every candidate at the lowest cost is a winner, and
//     more than one is a tie. Mark the Pareto frontier of cost, p99 TTFT
//     and p99 TPOT at the target.
//
// Pruning never changes the winner: a candidate is pruned only when a
// lower bound on its cost is strictly above the cost of a replica count
// seen to pass the SLO, so it could neither win nor tie. The bounds hold
// because the roofline bounds the throughput of any replica count (up to
// Slack, for finite runs), and because more replicas do not serve the same
// traffic worse: the verdicts are taken to be monotone in the replica
// count, a count that fails meaning every smaller one fails. That holds in
// expectation; a seeded run near the boundary can break it, and then the
// search, whose path pruning changes, may settle a candidate one count
// apart. The tests compare pruned and unpruned plans. NoPrune turns the
// cutoff off (the Budget stays), for the full table and frontier; Frontier
// widens it.
//
// The result is a function of the arguments alone: rounds are fixed
// batches of the ordered list, every step's runs are listed before they
// run (jobs.Each) and seeded by replication, and outcomes are stored by
// index, so the output is byte-identical at any GOMAXPROCS and Workers.
func Solve(obj Objective, s Search, cands []Candidate) (*Result, error) {
	if err := obj.Validate(); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("%w: no candidates", ErrInvalid)
	}
	for i := range cands {
		if err := cands[i].validate(); err != nil {
			return nil, err
		}
	}
	w, _ := obj.workload()
	st := &solver{obj: obj, s: s, w: w, best: math.Inf(1),
		res: &Result{Rate: obj.Rate, Criteria: obj.Criteria, Candidates: len(cands)}}
	queue, err := st.screen(cands)
	if err != nil {
		return nil, err
	}
	settled := len(cands) - len(queue)
	for pos := 0; pos < len(queue); {
		var round []*counter
		for pos < len(queue) && len(round) < s.Round {
			ct := queue[pos]
			pos++
			if ct.costLB > st.cutoff() {
				st.settle(ct.tooExpensive(st))
				settled++
				continue
			}
			round = append(round, ct)
		}
		st.res.Simulated += len(round)
		if err := st.lambda(round); err != nil {
			return nil, err
		}
		if err := st.count(round); err != nil {
			return nil, err
		}
		settled += len(round)
		if s.Progress != nil {
			s.Progress(settled, len(cands))
		}
	}
	st.res.finish()
	return st.res, nil
}

// solver holds one Solve's state.
type solver struct {
	obj  Objective
	s    Search
	w    workload.Workload // at the target rate
	best float64           // the cheapest cost seen to pass, dollars an hour
	res  *Result
}

// cutoff returns the most a candidate may cost and still be run: the
// budget, and with pruning (1+Frontier) times the cheapest cost seen to
// pass.
func (st *solver) cutoff() float64 {
	cut := math.Inf(1)
	if st.s.Budget > 0 {
		cut = st.s.Budget
	}
	if !st.s.NoPrune {
		cut = math.Min(cut, st.best*(1+st.s.Frontier))
	}
	return cut
}

// above names what a TooExpensive candidate's bound exceeds.
func (st *solver) above() string {
	if st.s.Budget > 0 && st.cutoff() == st.s.Budget {
		return fmt.Sprintf("above the budget $%s/h", formatMoney(st.s.Budget))
	}
	if st.s.Frontier > 0 {
		return fmt.Sprintf("above $%s/h, %s times the cheapest deployment found ($%s/h)",
			formatMoney(st.cutoff()), strconv.FormatFloat(1+st.s.Frontier, 'g', -1, 64), formatMoney(st.best))
	}
	return fmt.Sprintf("above $%s/h, the cheapest deployment found", formatMoney(st.best))
}

// settle records a candidate's end.
func (st *solver) settle(ct *counter) {
	st.res.Runs += ct.runs
	st.res.Requests += ct.requests
	switch {
	case ct.ranked != nil:
		st.res.Ranked = append(st.res.Ranked, *ct.ranked)
	default:
		st.res.Rejected = append(st.res.Rejected, ct.rejected)
		if ct.rejected.Reason == TooExpensive {
			st.res.Pruned++
		}
	}
}

// screen screens every candidate in parallel, rejects those that fail,
// and returns the others in order of their cost lower bound.
func (st *solver) screen(cands []Candidate) ([]*counter, error) {
	d := NewDemand(st.obj.Criteria, st.obj.Workload.Lengths)
	screens := make([]Screening, len(cands))
	if err := jobs.Each(len(cands), jobs.All, st.s.Workers, func(k, _ int) error {
		screens[k] = Screening{MaxRate: math.Inf(1)}
		if sc, ok := cands[k].Replica.(Screener); ok {
			screens[k] = sc.Screen(d)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	var queue []*counter
	for i, c := range cands {
		sc := screens[i]
		ct := &counter{c: c, maxRate: finiteOrZero(sc.MaxRate), kmin: 1}
		if sc.Reason != NoReason {
			st.settle(ct.reject(sc.Reason, sc.Why, 0))
			continue
		}
		if ct.maxRate > 0 {
			ct.kmin = max(1, int(math.Ceil(st.obj.Rate/(ct.maxRate*(1+st.s.slack()))-1e-9)))
		}
		ct.costLB = c.CostPerHour(ct.kmin)
		if ct.kmin > st.s.MaxReplicas {
			st.settle(ct.reject(TooManyReplicas, fmt.Sprintf("needs at least %s by the throughput roofline (%.3g req/s a replica), more than max_replicas %d",
				replicas(ct.kmin), ct.maxRate, st.s.MaxReplicas), ct.costLB))
			continue
		}
		queue = append(queue, ct)
	}
	st.res.Screened = len(queue)
	slices.SortStableFunc(queue, func(a, b *counter) int {
		return cmp.Or(cmp.Compare(a.costLB, b.costLB), cmp.Compare(a.c.Index, b.c.Index))
	})
	return queue, nil
}

// config returns a run of srv at the target rate with k replicas' worth of
// requests.
func (st *solver) config(srv sim.ServerConfig, k int) sim.Config {
	return sim.Config{Workload: st.w, Server: srv, Requests: k * st.s.Requests, Warmup: k * st.s.Warmup,
		SLO: st.obj.Criteria.SLO, SummaryOnly: true}
}

// lambda runs the λ* search of one replica of each candidate of the
// round, side by side; those that fail at every rate are Unreachable.
func (st *solver) lambda(round []*counter) error {
	rate := st.obj.Rate
	// The search goes down to a 16th of what MaxReplicas replicas would
	// each carry: a replica that fails even there cannot meet the SLO at
	// any useful rate; one that passes only below Rate/MaxReplicas is left
	// to the replica count, which tells too many replicas from too few.
	minRate := rate / float64(lowRateFactor*st.s.MaxReplicas)
	err := jobs.Each(len(round), jobs.All, st.s.Workers, func(k, _ int) error {
		ct := round[k]
		start := rate / 2
		if ct.maxRate > 0 {
			start = ct.maxRate / 2
		}
		search := capacity.Search{
			Base:     st.config(ct.c.Replica.Servers(1), 1),
			Criteria: st.obj.Criteria, Seed: st.s.Seed,
			Replications: st.s.Replications, BoundaryReplications: st.s.boundary(),
			Start: math.Min(math.Max(start, minRate), rate), Precision: st.s.Precision,
			MinRate: minRate, MaxRate: rate, Workers: st.s.Workers,
		}
		res, err := search.Run()
		if err != nil {
			return fmt.Errorf("candidate %d (%s): %w", ct.c.Index, ct.c.label(), err)
		}
		ct.runs, ct.requests = res.Runs, res.Requests
		ct.lambda = &Bracket{Lower: res.Lower, Upper: res.Upper}
		return nil
	})
	if err != nil {
		return err
	}
	for _, ct := range round {
		if ct.lambda.Lower == 0 {
			ct.reject(Unreachable, fmt.Sprintf("one replica misses the SLO even at %.3g req/s, a %dth of the load each of max_replicas %d replicas would carry",
				ct.lambda.Upper, lowRateFactor, st.s.MaxReplicas), 0)
			continue
		}
		k0 := ct.kmin
		if ct.lambda.Lower < rate {
			k0 = max(k0, int(math.Ceil(rate/ct.lambda.Lower-1e-9)))
		}
		ct.k0, ct.lo = min(k0, st.s.MaxReplicas), ct.kmin-1
	}
	return nil
}

// count finds the replica counts of the round's candidates in lockstep.
func (st *solver) count(round []*counter) error {
	for {
		// Each open candidate proposes its next count under the cutoff.
		var open []*counter
		var ks []int
		cut := st.cutoff()
		for _, ct := range round {
			if ct.done() {
				continue
			}
			k := ct.propose(st, cut)
			if ct.done() {
				continue
			}
			open = append(open, ct)
			ks = append(ks, k)
		}
		if len(open) == 0 {
			break
		}
		reps := st.s.boundary()
		results := make([]*sim.Result, len(open)*reps)
		err := jobs.Each(len(results), jobs.All, st.s.Workers, func(j, _ int) error {
			ct, k := open[j/reps], ks[j/reps]
			cfg := st.config(ct.c.Replica.Servers(k), k)
			cfg.Server = capacity.WithoutSeries(cfg.Server) // judged and summarised: no series read
			if n := cfg.Requests - cfg.Warmup; n > 0 {
				cfg.StopAfterMisses = capacity.MaxMisses(n, st.obj.Criteria.Target) + 1
			}
			cfg.Seed = event.ReplicationSeed(st.s.Seed, j%reps)
			res, err := sim.Run(cfg)
			if err != nil {
				return fmt.Errorf("candidate %d (%s), %s: %w", ct.c.Index, ct.c.label(), replicas(k), err)
			}
			res.Replication = j % reps
			results[j] = res
			return nil
		})
		if err != nil {
			return err
		}
		for i, ct := range open {
			ch := st.judge(ks[i], results[i*reps:(i+1)*reps])
			ct.record(ch)
			if ch.Pass {
				st.best = math.Min(st.best, ct.c.CostPerHour(ch.Replicas))
			}
		}
	}
	for _, ct := range round {
		if ct.rejected.Reason == NoReason {
			ct.finish(st.obj.Rate)
		}
		st.settle(ct)
	}
	return nil
}

// judge applies the criteria to the runs of one count.
func (st *solver) judge(k int, results []*sim.Result) check {
	ch := check{Check: Check{Replicas: k, Pass: true, MinAttainment: math.Inf(1)}, results: results}
	for _, res := range results {
		v := st.obj.Criteria.Judge(res, st.obj.Rate)
		ch.Pass = ch.Pass && v.Pass
		ch.MinAttainment = math.Min(ch.MinAttainment, v.Attainment)
		if !v.Pass && ch.Why == "" {
			ch.Why = v.String()
		}
	}
	return ch
}

// check is one replica count run at the target rate.
type check struct {
	Check
	results []*sim.Result
}

// ranked summarises a passing check as the candidate's row.
func (ch *check) ranked(c Candidate, rate float64) Ranked {
	r := Ranked{Candidate: c, Replicas: ch.Replicas, TotalGPUs: ch.Replicas * c.GPUs,
		CostPerHour: c.CostPerHour(ch.Replicas), Attainment: ch.MinAttainment}
	var out float64
	n := float64(len(ch.results))
	for _, res := range ch.results {
		r.TTFT.add(res.TTFT(), n)
		r.TPOT.add(res.TPOT(), n)
		r.ITL.add(res.ITL(), n)
		r.E2E.add(res.E2E(), n)
		if res.Completed > 0 {
			out += float64(res.TotalOutput) / float64(res.Completed) / n
		}
	}
	r.MeanOutput = out
	if tokensPerHour := rate * out * 3600; tokensPerHour > 0 {
		r.CostPerMTok = r.CostPerHour / tokensPerHour * 1e6
	}
	return r
}

func finiteOrZero(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return 0
	}
	return x
}

// replicas writes "1 replica" or "n replicas".
func replicas(n int) string {
	if n == 1 {
		return "1 replica"
	}
	return fmt.Sprintf("%d replicas", n)
}
