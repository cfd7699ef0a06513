package plan

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/sim/metrics"
)

// Result is a plan's answer.
type Result struct {
	// Model is the served model's name (LLM plans).
	Model string `json:"model,omitempty"`
	// Rate is the target rate, requests per second; Criteria the
	// acceptance rule.
	Rate     float64           `json:"rate"`
	Criteria capacity.Criteria `json:"criteria"`
	// Ranked lists the candidates that meet the objective, cheapest first
	// (then p99 TTFT, p99 TPOT, index), each at the fewest replicas that
	// pass.
	Ranked []Ranked `json:"ranked"`
	// Winners is the number of leading Ranked entries that share the
	// lowest cost an hour: 1 is a clear winner, more a tie, 0 none.
	Winners int `json:"winners"`
	// Rejected lists every other candidate with its reason, in candidate
	// order.
	Rejected []Rejection `json:"rejected"`
	// Candidates is the number of candidates, Screened those that passed
	// the screen, Simulated those whose λ* was searched, Pruned those
	// rejected as TooExpensive.
	Candidates int `json:"candidates"`
	Screened   int `json:"screened"`
	Simulated  int `json:"simulated"`
	Pruned     int `json:"pruned"`
	// Runs and Requests count the simulations.
	Runs     int   `json:"runs"`
	Requests int64 `json:"requests"`
	// Speculative is where speculative decoding stops paying for the
	// winner, when the space searched it (Space.SpecK).
	Speculative *SpecReport `json:"speculative,omitempty"`
}

// Best returns the winners: the ranked candidates at the lowest cost.
func (r *Result) Best() []Ranked { return r.Ranked[:r.Winners] }

// Tie reports whether more than one candidate shares the lowest cost.
func (r *Result) Tie() bool { return r.Winners > 1 }

// Frontier returns the ranked candidates on the Pareto frontier of cost
// an hour, p99 TTFT and p99 TPOT at the target rate, cheapest first.
func (r *Result) Frontier() []Ranked {
	var out []Ranked
	for _, x := range r.Ranked {
		if x.Frontier {
			out = append(out, x)
		}
	}
	return out
}

// Ranked is a candidate that meets the objective.
type Ranked struct {
	Candidate
	// Lambda is the bracket of λ* of one replica, requests per second (its
	// Upper is +Inf when one replica passes at the target rate itself).
	Lambda Bracket `json:"lambda_per_replica"`
	// MaxRate is the throughput roofline of one replica (0: unknown).
	MaxRate float64 `json:"roofline_rate_per_replica,omitempty"`
	// Replicas is the fewest replicas that meet the objective at the
	// target rate behind the router; TotalGPUs is Replicas × GPUs.
	Replicas  int `json:"replicas"`
	TotalGPUs int `json:"gpus"`
	// CostPerHour is GPUs × price, dollars; CostPerMTok the dollars per
	// million output tokens at the target rate (CostPerHour over Rate ×
	// MeanOutput × 3600, times 10^6).
	CostPerHour float64 `json:"cost_per_hour"`
	CostPerMTok float64 `json:"cost_per_million_output_tokens"`
	// MeanOutput is the measured mean output length, tokens.
	MeanOutput float64 `json:"mean_output_tokens"`
	// Attainment is the least SLO attainment over the runs at the target.
	Attainment float64 `json:"attainment"`
	// Latencies at the target rate with Replicas replicas, seconds: the
	// mean over runs of each run's percentile.
	TTFT Percentiles `json:"ttft"`
	TPOT Percentiles `json:"tpot"`
	ITL  Percentiles `json:"itl"`
	E2E  Percentiles `json:"e2el"`
	// Checks are the replica counts run at the target rate, in order of
	// count.
	Checks []Check `json:"checks"`
	// Frontier marks the Pareto frontier of cost, p99 TTFT and p99 TPOT.
	Frontier bool `json:"frontier"`
	// Serve and Bench are the `vllm serve` and `vllm bench serve` command
	// lines that deploy and verify an LLM candidate (Plan.Run fills them).
	Serve string `json:"vllm_serve,omitempty"`
	Bench string `json:"vllm_bench_serve,omitempty"`
}

// Check is one replica count run at the target rate.
type Check struct {
	Replicas int  `json:"replicas"`
	Pass     bool `json:"pass"`
	// MinAttainment is the least attainment over the runs.
	MinAttainment float64 `json:"min_attainment"`
	// Why is the first failing run's verdict.
	Why string `json:"why,omitempty"`
}

// Percentiles are a latency's p50 and p99, seconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P99 float64 `json:"p99"`
}

func (p *Percentiles) add(s *metrics.Sample, n float64) {
	if s == nil || s.Count() == 0 {
		return
	}
	p.P50 += s.Percentile(50) / n
	p.P99 += s.Percentile(99) / n
}

// Rejection is a candidate that did not make the ranking, and why.
type Rejection struct {
	Candidate
	Reason Reason `json:"reason"`
	Why    string `json:"why"`
	// CostLowerBound is a lower bound on its cost, dollars an hour, where
	// one was computed (TooExpensive, TooManyReplicas).
	CostLowerBound float64 `json:"cost_lower_bound,omitempty"`
	// Lambda is its λ* bracket when it was searched.
	Lambda *Bracket `json:"lambda_per_replica,omitempty"`
}

// Bracket is a λ* bracket: Lower passed, Upper failed (+Inf when none
// failed), requests per second. Its JSON writes an infinite Upper as null.
type Bracket struct {
	Lower float64
	Upper float64
}

// MarshalJSON writes {"lower": x, "upper": y|null}.
func (b Bracket) MarshalJSON() ([]byte, error) {
	var up any = b.Upper
	if math.IsInf(b.Upper, 1) {
		up = nil
	}
	return json.Marshal(struct {
		Lower float64 `json:"lower"`
		Upper any     `json:"upper"`
	}{b.Lower, up})
}

// String returns "[lo, hi)" or "[lo, inf)".
func (b Bracket) String() string {
	up := "inf"
	if !math.IsInf(b.Upper, 1) {
		up = strconv.FormatFloat(b.Upper, 'f', 2, 64)
	}
	return "[" + strconv.FormatFloat(b.Lower, 'f', 2, 64) + ", " + up + ")"
}

// finish sorts the lists, counts the winners and marks the frontier.
func (r *Result) finish() {
	slices.SortFunc(r.Ranked, func(a, b Ranked) int {
		return cmp.Or(cmp.Compare(a.CostPerHour, b.CostPerHour), cmp.Compare(a.TTFT.P99, b.TTFT.P99),
			cmp.Compare(a.TPOT.P99, b.TPOT.P99), cmp.Compare(a.Index, b.Index))
	})
	slices.SortFunc(r.Rejected, func(a, b Rejection) int { return cmp.Compare(a.Index, b.Index) })
	r.Winners = 0
	for _, x := range r.Ranked {
		if x.CostPerHour != r.Ranked[0].CostPerHour {
			break
		}
		r.Winners++
	}
	for i := range r.Ranked {
		a := &r.Ranked[i]
		a.Frontier = true
		for j := range r.Ranked {
			if dominates(&r.Ranked[j], a) {
				a.Frontier = false
				break
			}
		}
	}
}

// dominates reports whether a is no worse than b in cost, p99 TTFT and p99
// TPOT and better in one.
func dominates(a, b *Ranked) bool {
	le := a.CostPerHour <= b.CostPerHour && a.TTFT.P99 <= b.TTFT.P99 && a.TPOT.P99 <= b.TPOT.P99
	lt := a.CostPerHour < b.CostPerHour || a.TTFT.P99 < b.TTFT.P99 || a.TPOT.P99 < b.TPOT.P99
	return le && lt
}

// formatMoney writes dollars with two decimals.
func formatMoney(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }
