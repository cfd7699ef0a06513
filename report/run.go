package report

import (
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim/metrics"
)

// A Kind says what a Run holds.
type Kind int

// Kinds of runs.
const (
	// Bench is one benchmark: servesim bench, vllm bench serve, or one
	// sim.Result. It has one Point.
	Bench Kind = iota
	// Sweep is one point per swept value, each a mean over replications:
	// servesim run and merge, or vllm bench serve --append-result.
	Sweep
	// Capacity is a λ* search or rate grid: servesim capacity --json.
	Capacity
	// Screen is a TP-versus-replicas screen (servesim tp).
	Screen
)

var kindNames = [...]string{"bench", "sweep", "capacity", "tp screen"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// A Source says where a run's numbers come from.
type Source int

// Sources.
const (
	Simulated Source = iota // servesim
	Measured                // a real server, measured by vllm bench serve
)

func (s Source) String() string {
	if s == Measured {
		return "measured"
	}
	return "simulated"
}

// A Run is one result file (or one library result) as the report shows
// it: how it was set up, and its numbers under vLLM's result field names.
type Run struct {
	// Label names the run in legends and table headers.
	Label string
	// File is the file it was read from ("" for a library result).
	File   string
	Source Source
	Kind   Kind
	// Setup describes the run: model, GPU, rate, dataset, ..., in the
	// order of the file.
	Setup []Field
	// Param is the swept field ("" when there is none): a scenario path
	// (workload.arrival.rate) or a vLLM result key (request_rate).
	Param string
	// SLO is the objective in milliseconds and its target (nil: none).
	SLO *SLO
	// Points are the sweep points, probes or the one benchmark, in order.
	Points []Point
	// Lower and Upper bracket λ*, req/s (capacity runs; Upper may be +Inf).
	Lower, Upper float64
	// Screen is a TP screen's outcome; CommonRate the rate every candidate
	// also ran at (0: none).
	Screen     *screen.Report
	CommonRate float64
}

// A Field is one line of a run's setup.
type Field struct{ Key, Value string }

// SLO is an objective: per-request bounds in milliseconds (0: none) and
// the attainment target q in (0, 1].
type SLO struct {
	TTFT, TPOT, E2EL float64
	Target           float64
}

// Criteria is the acceptance rule of the objective: capacity's
// (capacity.DefaultCriteria), the rule servesim run and capacity judge a
// run by.
func (s SLO) Criteria() capacity.Criteria {
	return capacity.DefaultCriteria(metrics.SLO{TTFT: s.TTFT / 1000, TPOT: s.TPOT / 1000, E2E: s.E2EL / 1000}, s.Target)
}

// Text describes the bounds: "TTFT ≤ 500 ms, TPOT ≤ 50 ms".
func (s SLO) Text() string {
	var parts []string
	for _, b := range []struct {
		name string
		v    float64
	}{{"TTFT", s.TTFT}, {"TPOT", s.TPOT}, {"E2EL", s.E2EL}} {
		if b.v > 0 {
			parts = append(parts, b.name+" ≤ "+short(b.v)+" ms")
		}
	}
	return strings.Join(parts, ", ")
}

func sloFrom(s metrics.SLO, target float64) *SLO {
	if !s.Set() {
		return nil
	}
	return &SLO{TTFT: 1000 * s.TTFT, TPOT: 1000 * s.TPOT, E2EL: 1000 * s.E2E, Target: target}
}

// A Point is one sweep point, capacity probe or benchmark.
type Point struct {
	// Value is the swept value as written ("" without a sweep); X is it
	// as a number (NaN when it is not one).
	Value string
	X     float64
	// Runs counts the replications behind the point.
	Runs int
	// Metrics holds the result's numeric fields under their JSON names
	// (vLLM's: request_throughput, p99_ttft_ms, ...), means over the
	// replications; Keys lists them in the file's order.
	Metrics map[string]float64
	Keys    []string
	// Attainment holds each replication's SLO attainment in [0, 1] (none
	// without an SLO); Unstable counts replications judged unstable.
	Attainment []float64
	Unstable   int
	// Verdicts are a capacity probe's per-run verdicts.
	Verdicts []capacity.Verdict
	// Pass is the point's verdict: every replication passes capacity's
	// rule (SLO.Criteria: attainment, failure rate, send rate, stability;
	// capacity: the search's verdict), a servesim bench file included. A
	// measured vLLM file, which holds no servesim counts, is judged by
	// attainment and stability only.
	Pass bool
	// Samples holds per-request values in milliseconds by metric (ttft,
	// tpot, itl, e2el), when the file has them (--save-detailed; vLLM's
	// latencies always).
	Samples map[string][]float64
	// Series are the server's counters over time (running, waiting,
	// kv_cache_usage, ...), when the file has them.
	Series []*metrics.Series
}

// Metric returns a metric by its JSON name and whether it is there.
func (p *Point) Metric(key string) (float64, bool) {
	v, ok := p.Metrics[key]
	return v, ok && !math.IsNaN(v)
}

// value returns a metric or NaN.
func (p *Point) value(key string) float64 {
	if v, ok := p.Metric(key); ok {
		return v
	}
	return math.NaN()
}

// MinAttainment returns the lowest attainment over replications (NaN
// without any).
func (p *Point) MinAttainment() float64 {
	if len(p.Attainment) == 0 {
		return math.NaN()
	}
	return slices.Min(p.Attainment)
}

// Get returns the setup value of key ("" when absent).
func (r *Run) Get(key string) string {
	for _, f := range r.Setup {
		if f.Key == key {
			return f.Value
		}
	}
	return ""
}

// paramName is the last part of the swept field: rate, clients, ...
func paramName(param string) string { return param[strings.LastIndex(param, ".")+1:] }
