package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim/metrics"
)

// The run file's types live with the experiment that writes them
// (scenario.RunFile); merge and the printers here use them by these names.
type (
	runOutput = scenario.RunFile
	jobRecord = scenario.RunRecord
	sloJSON   = scenario.RunSLO
)

// runFormat marks the JSON output of `servesim run` and `servesim merge`.
const runFormat = scenario.RunFormat

// newRunOutput describes the experiment x of sc (before any job ran).
func newRunOutput(sc *scenario.Scenario, x *scenario.Experiment, shard jobs.Shard) (*runOutput, error) {
	return sc.NewRunFile(x, shard)
}

// readRunOutput parses a run output; name is used in errors, which say
// what the file is when it is not one.
func readRunOutput(data []byte, name string) (*runOutput, error) {
	r, err := scenario.ReadRunFile(data)
	if err != nil {
		return nil, errors.New(notShard(name, data, runFormat))
	}
	return r, nil
}

// notShard says what a file given to a merge is, when it is not what the
// merge joins (want: runFormat or gridKind).
func notShard(name string, data []byte, want string) string {
	var head struct{ Format, Kind string }
	err := json.Unmarshal(data, &head)
	switch {
	case head.Kind == gridKind:
		return fmt.Sprintf("%s is a 'servesim capacity --grid --shard' output: join those with servesim capacity --merge", name)
	case head.Format == runFormat:
		return fmt.Sprintf("%s is a 'servesim run --format json' (or --shard) output: join those with servesim merge", name)
	case err != nil:
		what := "not JSON"
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			what = "JSON, but not an object"
		}
		return fmt.Sprintf("%s is %s, not a servesim %s output (%v)", name, what, shardKindText(want), err)
	case head.Format != "":
		return fmt.Sprintf("%s has format %q, not %q: not a servesim %s output", name, head.Format, want, shardKindText(want))
	default:
		return fmt.Sprintf("%s is JSON without a servesim format: not a servesim %s output", name, shardKindText(want))
	}
}

func shardKindText(kind string) string {
	if kind == gridKind {
		return "capacity --grid --shard"
	}
	return "run"
}

// readShardFile reads a file given to a merge; a directory is named as
// such.
func readShardFile(name string) ([]byte, error) {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory: give the shard files themselves (%s/*.json)", name, strings.TrimSuffix(name, "/"))
	}
	return os.ReadFile(name)
}

// A pointRow summarises one sweep point over its replications: latency
// and throughput columns are means over replications; attainment keeps
// the minimum and maximum (the acceptance rule takes the minimum, a
// conservative envelope, not a confidence interval).
type pointRow struct {
	Index int
	Label string
	X     float64 // the value as a number, or the index when it is not one
	N     int     // replications

	SendRate, ReqThroughput, OutThroughput             float64
	TTFTp50, TTFTp99, TPOTp99, ITLp50, ITLp99, E2ELp99 float64
	GoodputPerGPU, KVUsage                             float64
	AttainMin, AttainMax                               float64
	Failed, Unstable                                   int
	Pass                                               bool
}

// rows aggregates r's records point by point, in point order.
func rows(r *runOutput) ([]pointRow, error) {
	n := max(len(r.Values), 1)
	rows := make([]pointRow, n)
	for i := range rows {
		rows[i] = pointRow{Index: i, Label: "-", X: float64(i), AttainMin: math.Inf(1), AttainMax: math.Inf(-1)}
		if i < len(r.Values) {
			rows[i].Label = valueLabel(r.Values[i])
			if f, err := strconv.ParseFloat(string(r.Values[i]), 64); err == nil {
				rows[i].X = f
			}
		}
	}
	crit := runCriteria(r)
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
		failed := m.num("failed")
		if !(failed >= 0 && failed <= math.MaxInt32) || failed != math.Trunc(failed) {
			return nil, fmt.Errorf("job %d: failed %v is not a request count", rec.Job, failed)
		}
		row.Failed += int(failed)
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

// criteria is the acceptance rule of the run's SLO: capacity's
// (capacity.DefaultCriteria), so run, capacity and the report judge a run
// alike.
func runCriteria(r *runOutput) capacity.Criteria {
	if r.SLO == nil {
		return capacity.Criteria{}
	}
	slo := metrics.SLO{TTFT: r.SLO.TTFTms / 1000, TPOT: r.SLO.TPOTms / 1000, E2E: r.SLO.E2ELms / 1000}
	return capacity.DefaultCriteria(slo, r.SLO.Target)
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
