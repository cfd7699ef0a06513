package plan

import (
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/sim"
)

// Speculative decoding as a dimension of the space (Space.SpecK,
// docs/speculative.md): each candidate once per number of draft tokens,
// 0 without speculative decoding, the method, draft and acceptance those
// of Engine.Speculative.

// validateSpec checks Space.SpecK: each from 0 to capacity.MaxSpecK, a
// k > 0 only with Engine.Speculative to take the method and acceptance
// from, and the space times the k within MaxCandidates.
func (p Plan) validateSpec() error {
	ks := p.Space.SpecK
	for i, k := range ks {
		switch {
		case k < 0 || k > capacity.MaxSpecK:
			return fmt.Errorf("%w: spec_k[%d] %d must be from 0 (off) to %d", ErrInvalid, i, k, capacity.MaxSpecK)
		case slices.Contains(ks[:i], k):
			return fmt.Errorf("%w: spec_k repeats %d: it would be the same candidate twice", ErrInvalid, k)
		case k > 0 && p.Engine.Speculative == nil:
			return fmt.Errorf("%w: spec_k[%d] %d needs the engine's speculative_config (--speculative-config): its method, draft and acceptance are those of every k", ErrInvalid, i, k)
		}
		if k > 0 {
			sp := *p.Engine.Speculative
			sp.NumSpeculativeTokens = k
			if _, err := sp.Acceptance(); err != nil {
				return fmt.Errorf("%w: spec_k[%d] %d: %w", ErrInvalid, i, k, err)
			}
		}
	}
	if n := len(ks); n > 1 && p.Space.size(p.Engine) > MaxCandidates/n {
		return fmt.Errorf("%w: the space has more than %d candidates with its %d spec_k values: search fewer", ErrInvalid, MaxCandidates, n)
	}
	return nil
}

// withSpecK returns cands once per Space.SpecK value (each candidate's
// k in the order given, one after the other), each engine's
// Speculative set to the template with k draft tokens (none for 0), its
// Settings.SpecK and name saying which; indexes renumbered. Without
// SpecK it returns cands.
func (p Plan) withSpecK(cands []Candidate) []Candidate {
	ks := p.Space.SpecK
	if len(ks) == 0 {
		return cands
	}
	out := make([]Candidate, 0, len(cands)*len(ks))
	for _, c := range cands {
		for _, k := range ks {
			v := c
			v.Index = len(out)
			v.Settings.SpecK = k
			v.Name = c.Name + " " + specLabel(k)
			if e, ok := c.Replica.(Engine); ok {
				e.ServeArgs = slices.Clone(e.ServeArgs)
				e.Config.Speculative = nil
				if k > 0 {
					sp := *p.Engine.Speculative
					sp.NumSpeculativeTokens = k
					e.Config.Speculative = &sp
				}
				v.Replica = e
			}
			out = append(out, v)
		}
	}
	return out
}

// specLabel is the name suffix of k draft tokens: "spec-k3", "no-spec".
func specLabel(k int) string {
	if k == 0 {
		return "no-spec"
	}
	return fmt.Sprintf("spec-k%d", k)
}

// SpecReport answers, for the winning deployment of a plan whose space
// searched speculative decoding, at which per-replica rate each k stops
// paying against the same engine without it (capacity.SpecCrossover).
type SpecReport struct {
	// Winner is the winning candidate's name; WinnerK its draft tokens
	// (0: off).
	Winner  string `json:"winner"`
	WinnerK int    `json:"winner_num_speculative_tokens"`
	// RatePerReplica is the target rate over the winner's replicas,
	// req/s: the load each of its engines carries.
	RatePerReplica float64 `json:"rate_per_replica"`
	// Rates are the per-replica rates compared, req/s.
	Rates []float64 `json:"rates"`
	// Ks are the crossovers, one per k > 0 of the space.
	Ks []SpecKCrossover `json:"crossovers"`
}

// SpecKCrossover is one k of a SpecReport.
type SpecKCrossover struct {
	K int `json:"num_speculative_tokens"`
	// Crossover is the per-replica rate at which k stops paying, between
	// Lo and Hi (capacity.CrossoverResult); nil (JSON null) when it pays at
	// every rate compared.
	Crossover *float64 `json:"crossover"`
	Lo        float64  `json:"crossover_lo"`
	Hi        *float64 `json:"crossover_hi"`
	// PaysAtTarget reports whether k pays at RatePerReplica (the sixth
	// rate compared).
	PaysAtTarget bool `json:"pays_at_target"`
}

// specReport compares, for the first winner of res, each k > 0 of the
// space against off over capacity.DefaultSpecRates of its per-replica
// rate (a sixth of it to twice it, the target sixth), its engine's other
// settings kept; nil when the space does not search SpecK or nothing
// won.
func (p Plan) specReport(res *Result) (*SpecReport, error) {
	if !slices.ContainsFunc(p.Space.SpecK, func(k int) bool { return k > 0 }) || res.Winners == 0 {
		return nil, nil
	}
	w := res.Ranked[0]
	e, ok := w.Replica.(Engine)
	if !ok {
		return nil, nil
	}
	per := p.Objective.Rate / float64(w.Replicas)
	rep := &SpecReport{Winner: w.Name, WinnerK: w.Settings.SpecK, RatePerReplica: per, Rates: capacity.DefaultSpecRates(per)}
	at := func(k int) func(float64) (sim.Config, error) {
		return func(rate float64) (sim.Config, error) {
			c := e.Config
			c.Speculative = nil
			if k > 0 {
				sp := *p.Engine.Speculative
				sp.NumSpeculativeTokens = k
				c.Speculative = &sp
			}
			wl := p.Objective.Workload
			arr, err := capacity.WithRate(wl.Arrivals, rate)
			if err != nil {
				return sim.Config{}, err
			}
			wl.Arrivals = arr
			return sim.Config{Workload: wl, Server: Engine{Config: c, Router: e.Router}.Servers(1),
				Requests: p.Search.Requests, Warmup: p.Search.Warmup, SummaryOnly: true}, nil
		}
	}
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) {
			return nil
		}
		return &x
	}
	for _, k := range p.Space.SpecK {
		if k == 0 {
			continue
		}
		c, err := capacity.SpecCrossover{Rates: rep.Rates, Off: at(0), On: at(k), Seed: p.Search.Seed, Workers: p.Search.Workers}.Run()
		if err != nil {
			return nil, fmt.Errorf("plan: the crossover of %s at k=%d: %w", w.Name, k, err)
		}
		rep.Ks = append(rep.Ks, SpecKCrossover{K: k, Crossover: finite(c.Crossover), Lo: c.Lo, Hi: finite(c.Hi),
			PaysAtTarget: c.Rows[5].Pays()})
	}
	return rep, nil
}

// WriteText writes the report: the winner's k and, for each k > 0, the
// per-replica rate at which it stops paying. A nil report writes
// nothing.
func (r *SpecReport) WriteText(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "speculative decoding: the winner runs %s at %.3g req/s a replica\n", specLabel(r.WinnerK), r.RatePerReplica)
	for _, k := range r.Ks {
		pays := "pays"
		if !k.PaysAtTarget {
			pays = "does not pay"
		}
		switch {
		case k.Crossover == nil:
			fmt.Fprintf(w, "  k=%d %s there, and at every rate to %.3g req/s a replica\n", k.K, pays, r.Rates[len(r.Rates)-1])
		case k.Hi != nil && k.Lo == *k.Hi:
			fmt.Fprintf(w, "  k=%d %s there; it never pays from %.3g req/s a replica\n", k.K, pays, k.Lo)
		default:
			fmt.Fprintf(w, "  k=%d %s there; it stops paying at %.3g req/s a replica (pays at %.3g, not at %.3g)\n", k.K, pays, *k.Crossover, k.Lo, *k.Hi)
		}
	}
}
