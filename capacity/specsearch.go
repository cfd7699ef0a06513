package capacity

import (
	"fmt"
	"math"
	"slices"

	"github.com/servesim/servesim/sim"
)

// MaxSpecK is the largest number of draft tokens a SpecSweep compares
// (specdecode's num_speculative_tokens limit).
const MaxSpecK = 64

// SpecSweep answers the operator's question about speculative decoding
// for one deployment: for each number of draft tokens k (0: off) the
// capacity λ* under the SLO (a Search), and for each k > 0 the rate at
// which it stops paying against the plain engine (a SpecCrossover).
type SpecSweep struct {
	// Search is the λ* search of every k: its Base is replaced by
	// Config(k) (the rate it probes set as usual).
	Search Search
	// Ks are the draft-token counts compared, ascending, each 0 to
	// MaxSpecK; 0 is the engine without speculative decoding and must be
	// among them (the crossovers compare against it).
	Ks []int
	// Config returns the run with k draft tokens, or without speculative
	// decoding for k = 0.
	Config func(k int) (sim.Config, error)
	// Rates are the rates of the crossover comparison, ascending, req/s;
	// empty: DefaultSpecRates of the largest bracket found.
	Rates []float64
}

// SpecSweepRow is one k of a SpecSweep.
type SpecSweepRow struct {
	// K is the draft tokens per step (0: off).
	K int
	// Lower and Upper bracket λ* (Result.Lower, Result.Upper), req/s.
	Lower float64
	Upper float64
	// Search is the λ* search.
	Search *Result
	// Crossover compares k against off over the sweep's rates; nil for
	// k = 0.
	Crossover *CrossoverResult
}

// SpecSweepResult is what SpecSweep.Run returns.
type SpecSweepResult struct {
	Rows []SpecSweepRow
	// Rates are the crossover rates compared, req/s.
	Rates []float64
	// Best is the index in Rows of the k with the largest λ* (its lower
	// bound; the smaller k on a tie).
	Best int
}

// DefaultSpecRates returns the crossover rates of a sweep whose largest
// λ* bracket ends at upper: upper·i/6 for i = 1 … 12, so the comparison
// reaches twice the capacity under the SLO, where speculative decoding
// stops paying if it ever does.
func DefaultSpecRates(upper float64) []float64 {
	out := make([]float64, 12)
	for i := range out {
		out[i] = upper * float64(i+1) / 6
	}
	return out
}

// Validate checks the sweep's lists; Search.Validate checks the rest on
// each run.
func (s SpecSweep) Validate() error {
	switch {
	case len(s.Ks) == 0:
		return fmt.Errorf("%w: spec sweep has no k to compare: give 0 (off) and the draft-token counts", ErrInvalid)
	case s.Config == nil:
		return fmt.Errorf("%w: spec sweep has no Config", ErrInvalid)
	case s.Ks[0] != 0:
		return fmt.Errorf("%w: spec sweep k %v must include 0 (off) first: the crossovers compare against it", ErrInvalid, s.Ks)
	}
	for i, k := range s.Ks {
		if k < 0 || k > MaxSpecK || (i > 0 && k <= s.Ks[i-1]) {
			return fmt.Errorf("%w: spec sweep k[%d] %d must be from 0 to %d and above the one before", ErrInvalid, i, k, MaxSpecK)
		}
	}
	for i, r := range s.Rates {
		if !(r > 0) || math.IsInf(r, 1) || (i > 0 && r <= s.Rates[i-1]) {
			return fmt.Errorf("%w: spec sweep rates[%d] %v must be finite, > 0 and above the one before", ErrInvalid, i, r)
		}
	}
	return nil
}

// Run searches λ* for every k, then compares every k > 0 against off
// over the rates. Runs are seeded from Search.Seed, the same for every
// k: the arms see the same arrivals and lengths.
func (s SpecSweep) Run() (*SpecSweepResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	out := &SpecSweepResult{}
	upper := 0.0
	for _, k := range s.Ks {
		base, err := s.Config(k)
		if err != nil {
			return nil, fmt.Errorf("spec sweep k=%d: %w", k, err)
		}
		srch := s.Search
		srch.Base = base
		res, err := srch.Run()
		if err != nil {
			return nil, fmt.Errorf("spec sweep k=%d: %w", k, err)
		}
		out.Rows = append(out.Rows, SpecSweepRow{K: k, Lower: res.Lower, Upper: res.Upper, Search: res})
		b := res.Upper
		if math.IsInf(b, 1) {
			b = res.Lower
		}
		upper = max(upper, b)
		if res.Lower > out.Rows[out.Best].Lower {
			out.Best = len(out.Rows) - 1
		}
	}
	out.Rates = slices.Clone(s.Rates)
	if len(out.Rates) == 0 {
		if !(upper > 0) {
			return nil, fmt.Errorf("%w: spec sweep: no k has a finite λ* bracket to place the crossover rates at: give Rates", ErrInvalid)
		}
		out.Rates = DefaultSpecRates(upper)
	}
	off := func(r float64) (sim.Config, error) { return s.at(0, r) }
	for i := range out.Rows {
		row := &out.Rows[i]
		if row.K == 0 {
			continue
		}
		k := row.K
		c, err := SpecCrossover{Rates: out.Rates, Off: off, On: func(r float64) (sim.Config, error) { return s.at(k, r) },
			Seed: s.Search.Seed, Workers: s.Search.Workers}.Run()
		if err != nil {
			return nil, fmt.Errorf("spec sweep k=%d: %w", k, err)
		}
		row.Crossover = &c
	}
	return out, nil
}

// at returns the run with k draft tokens at rate.
func (s SpecSweep) at(k int, rate float64) (sim.Config, error) {
	c, err := s.Config(k)
	if err != nil {
		return sim.Config{}, err
	}
	p, err := WithRate(c.Workload.Arrivals, rate)
	if err != nil {
		return sim.Config{}, err
	}
	c.Workload.Arrivals = p
	return c, nil
}
