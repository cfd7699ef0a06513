package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/vllmbench"
)

// A Row summarises one sweep point of a run file over its replications,
// as `servesim run` prints it: latency
// and throughput columns are means over replications; attainment keeps
// the minimum and maximum (the acceptance rule takes the minimum, a
// conservative envelope, not a confidence interval).
type Row struct {
	Index int
	Label string
	X     float64 // the value as a number, or the index when it is not one
	N     int     // replications

	SendRate, ReqThroughput, OutThroughput             float64
	TTFTp50, TTFTp99, TPOTp99, ITLp50, ITLp99, E2ELp99 float64
	GoodputPerGPU, KVUsage                             float64
	AttainMin, AttainMax                               float64
	// Completed and Failed are request counts summed over the
	// replications (failed: failed or rejected); Unstable counts the
	// unstable replications.
	Completed, Failed, Unstable int
	Pass                        bool
}

// Rows aggregates r's records point by point, in point order. With an
// SLO a point passes when every replication passes capacity's rule
// (SLO.Criteria), the rule the report and capacity judge a run by.
func Rows(r *scenario.RunFile) ([]Row, error) {
	n := max(len(r.Values), 1)
	rows := make([]Row, n)
	for i := range rows {
		rows[i] = Row{Index: i, Label: "-", X: float64(i), AttainMin: math.Inf(1), AttainMax: math.Inf(-1)}
		if i < len(r.Values) {
			rows[i].Label = valueLabel(r.Values[i])
			if f, err := strconv.ParseFloat(string(r.Values[i]), 64); err == nil {
				rows[i].X = f
			}
		}
	}
	var crit capacity.Criteria
	if r.SLO != nil {
		crit = SLO{TTFT: r.SLO.TTFTms, TPOT: r.SLO.TPOTms, E2EL: r.SLO.E2ELms, Target: r.SLO.Target}.Criteria()
	}
	for _, rec := range r.Results {
		if rec.Point < 0 || rec.Point >= n {
			return nil, fmt.Errorf("job %d: point %d out of range [0, %d)", rec.Job, rec.Point, n)
		}
		m, err := metricsOf(rec.Result)
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", rec.Job, err)
		}
		row := &rows[rec.Point]
		if row.N == 0 {
			row.Pass = true
		}
		if r.SLO != nil {
			judged, err := capacity.ParseRecord(rec.Result)
			if err != nil {
				return nil, fmt.Errorf("job %d: %w", rec.Job, err)
			}
			row.Pass = row.Pass && crit.JudgeRecord(judged).Pass
		}
		row.N++
		row.SendRate += m.num("send_rate")
		row.ReqThroughput += m.num("request_throughput")
		row.OutThroughput += m.num("output_throughput")
		row.TTFTp50 += m.num("median_ttft_ms")
		row.TTFTp99 += m.num("p99_ttft_ms")
		row.TPOTp99 += m.num("p99_tpot_ms")
		row.ITLp50 += m.num("median_itl_ms")
		row.ITLp99 += m.num("p99_itl_ms")
		row.E2ELp99 += m.num("p99_e2el_ms")
		row.GoodputPerGPU += m.num("goodput_per_gpu")
		row.KVUsage += m.num("mean_kv_cache_usage")
		a := m.num("slo_attainment")
		row.AttainMin, row.AttainMax = math.Min(row.AttainMin, a), math.Max(row.AttainMax, a)
		for _, c := range []struct {
			key string
			sum *int
		}{{"completed", &row.Completed}, {"failed", &row.Failed}} {
			n := m.num(c.key)
			if !(n >= 0 && n <= math.MaxInt32) || n != math.Trunc(n) {
				return nil, fmt.Errorf("job %d: %s %v is not a request count", rec.Job, c.key, n)
			}
			*c.sum += int(n)
		}
		if m.unstable() {
			row.Unstable++
		}
	}
	for i := range rows {
		row := &rows[i]
		if row.N == 0 {
			continue
		}
		k := float64(row.N)
		for _, f := range []*float64{&row.SendRate, &row.ReqThroughput, &row.OutThroughput, &row.TTFTp50, &row.TTFTp99,
			&row.TPOTp99, &row.ITLp50, &row.ITLp99, &row.E2ELp99, &row.GoodputPerGPU, &row.KVUsage} {
			*f /= k
		}
		row.Pass = r.SLO != nil && row.Pass
	}
	return rows, nil
}

func valueLabel(v json.RawMessage) string {
	var s string
	if json.Unmarshal([]byte(v), &s) == nil {
		return s
	}
	return string(v)
}

// resultMetrics is a sim.Result's JSON, decoded.
type resultMetrics map[string]any

func metricsOf(raw json.RawMessage) (resultMetrics, error) {
	var m resultMetrics
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("result: %v", err)
	}
	return m, nil
}

// num returns a numeric field, NaN when it is missing or null.
func (m resultMetrics) num(key string) float64 {
	if f, ok := m[key].(float64); ok {
		return f
	}
	return math.NaN()
}

func (m resultMetrics) unstable() bool {
	st, _ := m["stability"].(map[string]any)
	u, _ := st["unstable"].(bool)
	return u
}

// AllFailed returns one warning for each sweep point of x whose row (rows,
// in x's point order) completed no request in any replication while some
// failed: the swept field param and the point's value (none without a
// sweep), the failures, and why requests fail there
// (vllmbench.FailureReason). The rows keep their numbers (zeros).
func AllFailed(param string, x *scenario.Experiment, rows []Row) []string {
	var out []string
	for p, row := range rows {
		if p < len(x.Points) && row.Completed == 0 && row.Failed > 0 {
			at := ""
			if v := x.Points[p].Value; v != nil {
				at = fmt.Sprintf(" at %s = %s", param, scenario.FormatValue(v))
			}
			out = append(out, fmt.Sprintf("every request failed%s (%d): %s", at, row.Failed, vllmbench.FailureReason(x.Points[p].Scenario, false)))
		}
	}
	return out
}
