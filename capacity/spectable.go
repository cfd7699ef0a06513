package capacity

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// WriteTable writes the sweep as one row per k: the λ* bracket, then
// for k > 0 the rate at which it stops paying against off and the mean
// TPOT of both arms at the lowest crossover rate; a line names the best
// k and the crossover of each.
func (r *SpecSweepResult) WriteTable(w io.Writer) {
	if len(r.Rows) == 0 {
		fmt.Fprintln(w, "spec sweep: no rows")
		return
	}
	lowest := "-"
	if len(r.Rates) > 0 {
		lowest = fmt.Sprintf("%.3g", r.Rates[0])
	}
	fmt.Fprintf(w, "%4s  %-22s  %-26s  %s\n", "k", "lambda* (req/s)", "stops paying at (req/s)", "TPOT off/on at "+lowest+" req/s (ms)")
	for _, row := range r.Rows {
		cross, tpot := "-", "-"
		if c := row.Crossover; c != nil {
			cross = crossoverText(*c)
			if len(c.Rows) > 0 {
				tpot = fmt.Sprintf("%.2f / %.2f", 1e3*c.Rows[0].OffTPOT, 1e3*c.Rows[0].OnTPOT)
			}
		}
		k := "off"
		if row.K > 0 {
			k = fmt.Sprint(row.K)
		}
		fmt.Fprintf(w, "%4s  %-22s  %-26s  %s\n", k, bracketText(row.Lower, row.Upper), cross, tpot)
	}
	best := r.Rows[r.Best]
	if best.K == 0 {
		fmt.Fprintln(w, "best: off (no k raises lambda*)")
	} else {
		fmt.Fprintf(w, "best: k=%d (lambda* %s)\n", best.K, bracketText(best.Lower, best.Upper))
	}
	fmt.Fprintf(w, "crossover rates compared: %s req/s\n", floatsText(r.Rates))
}

// crossoverText is the crossover of c in words: the interpolated rate
// and its bracket, or that it pays at every rate or at none.
func crossoverText(c CrossoverResult) string {
	switch {
	case math.IsInf(c.Crossover, 1):
		return "pays at every rate"
	case c.Lo == c.Hi:
		return fmt.Sprintf("never pays (from %.3g)", c.Crossover)
	}
	return fmt.Sprintf("%.3g [%.3g, %.3g)", c.Crossover, c.Lo, c.Hi)
}

func bracketText(lo, hi float64) string {
	if math.IsInf(hi, 1) {
		return fmt.Sprintf("[%.3g, +Inf)", lo)
	}
	return fmt.Sprintf("[%.3g, %.3g)", lo, hi)
}

func floatsText(vs []float64) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprintf("%.3g", v)
	}
	return strings.Join(s, ", ")
}

// SpecSweepJSON is the JSON form of a SpecSweepResult: rates in req/s,
// TPOT in ms, an unbounded end or crossover as null.
type SpecSweepJSON struct {
	Rows  []SpecSweepRowJSON `json:"spec_sweep"`
	Rates []float64          `json:"crossover_rates"`
	// BestK is the draft-token count with the largest λ* (0: off).
	BestK int `json:"best_num_speculative_tokens"`
}

// SpecSweepRowJSON is one k of a SpecSweepJSON.
type SpecSweepRowJSON struct {
	K     int      `json:"num_speculative_tokens"`
	Lower float64  `json:"lower"`
	Upper *float64 `json:"upper"`
	// Crossover is the rate at which k stops paying (null: it pays at
	// every rate compared; absent for off), between CrossoverLo and
	// CrossoverHi.
	Crossover   *float64         `json:"crossover,omitempty"`
	CrossoverLo *float64         `json:"crossover_lo,omitempty"`
	CrossoverHi *float64         `json:"crossover_hi,omitempty"`
	PaysAlways  bool             `json:"pays_at_every_rate,omitempty"`
	Compared    []CrossoverPoint `json:"compared,omitempty"`
	Points      []Point          `json:"points"`
}

// CrossoverPoint is one rate of a crossover comparison in a
// SpecSweepRowJSON.
type CrossoverPoint struct {
	Rate          float64 `json:"rate"`
	OffTPOTms     float64 `json:"off_mean_tpot_ms"`
	OnTPOTms      float64 `json:"on_mean_tpot_ms"`
	OffThroughput float64 `json:"off_output_throughput"`
	OnThroughput  float64 `json:"on_output_throughput"`
	OffUnstable   bool    `json:"off_unstable"`
	OnUnstable    bool    `json:"on_unstable"`
	Pays          bool    `json:"pays"`
}

// JSON returns the JSON form of r.
func (r *SpecSweepResult) JSON() SpecSweepJSON {
	finite := func(x float64) *float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return &x
	}
	out := SpecSweepJSON{Rates: r.Rates}
	if len(r.Rows) > r.Best {
		out.BestK = r.Rows[r.Best].K
	}
	for _, row := range r.Rows {
		j := SpecSweepRowJSON{K: row.K, Lower: row.Lower, Upper: finite(row.Upper)}
		if row.Search != nil {
			j.Points = row.Search.Points
		}
		if c := row.Crossover; c != nil {
			j.Crossover, j.CrossoverLo, j.CrossoverHi = finite(c.Crossover), finite(c.Lo), finite(c.Hi)
			j.PaysAlways = math.IsInf(c.Crossover, 1)
			for _, p := range c.Rows {
				j.Compared = append(j.Compared, CrossoverPoint{Rate: p.Rate, OffTPOTms: 1e3 * p.OffTPOT, OnTPOTms: 1e3 * p.OnTPOT,
					OffThroughput: p.OffThroughput, OnThroughput: p.OnThroughput, OffUnstable: p.OffUnstable, OnUnstable: p.OnUnstable, Pays: p.Pays()})
			}
		}
		out.Rows = append(out.Rows, j)
	}
	return out
}
