package report

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/vllmbench"
)

// FromResult turns one sim.Result into a Bench run labelled label: the
// metrics of its JSON form (vLLM's names), per-request latencies when it
// kept its records, and the server's series. A Go test that calls sim.Run
// reports what the CLI reports. The setup holds what the Result knows
// (rate, burstiness, concurrency, requests, seed, GPUs, SLO); append
// Fields to Run.Setup for the rest (model, GPU, ...).
func FromResult(res *sim.Result, label string) *Run {
	r := &Run{Label: label, Kind: Bench, SLO: sloFrom(res.SLO, 0.99)}
	rate := "inf"
	if !math.IsInf(res.RequestRate, 1) {
		rate = short(res.RequestRate)
	}
	conc := "—"
	if res.MaxConcurrency > 0 {
		conc = strconv.Itoa(res.MaxConcurrency)
	}
	r.Setup = []Field{
		{"request_rate", rate}, {"burstiness", short(res.Burstiness)}, {"max_concurrency", conc},
		{"closed_loop", strconv.FormatBool(res.Closed)},
		{"num_requests", fmt.Sprintf("%d (%d warm-up)", res.Injected, res.Warmup)},
		{"seed", strconv.FormatUint(res.Seed, 10)}, {"gpus", strconv.Itoa(res.GPUs)},
	}
	if r.SLO != nil {
		r.Setup = append(r.Setup, Field{"slo", r.SLO.Text()})
	}
	p := resultPoint(res)
	if r.SLO != nil {
		p.Attainment = []float64{res.Attainment}
		p.Pass = r.SLO.Criteria().Judge(res, res.RequestRate).Pass
	}
	p.Samples = requestSamples(res.Requests)
	p.Series = res.Series
	r.Points = []Point{p}
	return r
}

// resultPoint is the point a sim.Result's JSON gives (parseBench's
// reading of it: every member that encodes as a number, null as NaN,
// the instability verdict), read from its typed Fields.
func resultPoint(res *sim.Result) Point {
	p := Point{Runs: 1, Metrics: map[string]float64{}, X: math.NaN()}
	for key, v := range res.Fields() {
		switch key {
		case "stability", "slo", "stopped_by":
			continue
		}
		if x, ok := jsonNumber(v); ok && !math.IsInf(x, 0) {
			p.Metrics[key] = x
			p.Keys = append(p.Keys, key)
		}
	}
	if res.Stability.Unstable {
		p.Unstable = 1
	}
	return p
}

// jsonNumber is v as number reads its JSON encoding: nil and a
// non-finite float (which encode as null) NaN, an integer or a float its
// value; false for anything else (a bool, a string such as "inf", a
// struct).
func jsonNumber(v any) (float64, bool) {
	if v == nil {
		return math.NaN(), true
	}
	switch x := reflect.ValueOf(v); x.Kind() {
	case reflect.Float32, reflect.Float64:
		if f := x.Float(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
		return math.NaN(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(x.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return float64(x.Uint()), true
	}
	return 0, false
}

// requestSamples are the latencies of the measured, completed requests,
// ms.
func requestSamples(reqs []metrics.Request) map[string][]float64 {
	out := map[string][]float64{}
	for i := range reqs {
		q := &reqs[i]
		if q.Warmup || q.Status != metrics.Completed {
			continue
		}
		out["ttft"] = append(out["ttft"], 1000*q.TTFT())
		out["e2el"] = append(out["e2el"], 1000*q.E2E())
		if v, ok := q.TPOT(); ok {
			out["tpot"] = append(out["tpot"], 1000*v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// FromCapacity turns capacity probes (from a capacity.Search or a judged
// rate grid) and their λ* bracket [lower, upper) into a Capacity run.
func FromCapacity(crit capacity.Criteria, points []capacity.Point, lower, upper float64) *Run {
	r := &Run{Kind: Capacity, Param: "rate", SLO: sloFrom(crit.SLO, crit.Target), Lower: lower, Upper: upper}
	if r.SLO == nil {
		r.SLO = &SLO{Target: crit.Target}
	}
	r.Setup = []Field{
		{"slo", r.SLO.Text()},
		{"target", short(crit.Target) + " of requests in every run"},
		{"max_failure_rate", short(crit.MaxFailureRate)},
		{"lambda*", bracketText(lower, upper)},
	}
	for _, cp := range points {
		p := Point{Value: short(cp.Rate), X: cp.Rate, Runs: len(cp.Runs), Pass: cp.Pass, Verdicts: cp.Runs, Metrics: map[string]float64{}}
		var send, fail float64
		for _, v := range cp.Runs {
			p.Attainment = append(p.Attainment, v.Attainment)
			if v.Unstable {
				p.Unstable++
			}
			send += v.SendRate
			fail = math.Max(fail, v.FailureRate)
		}
		if n := float64(len(cp.Runs)); n > 0 {
			p.Metrics["send_rate"] = send / n
			p.Metrics["max_failure_rate"] = fail
			p.Metrics["min_attainment"] = cp.MinAttainment
			p.Keys = []string{"send_rate", "max_failure_rate", "min_attainment"}
		}
		r.Points = append(r.Points, p)
	}
	return r
}

// FromSearch turns a capacity search's result into a Capacity run.
func FromSearch(crit capacity.Criteria, res *capacity.Result) *Run {
	r := FromCapacity(crit, res.Points, res.Lower, res.Upper)
	r.Setup = append(r.Setup, Field{"simulations", fmt.Sprintf("%d runs, %d requests", res.Runs, res.Requests)})
	return r
}

// bracketText writes a λ* bracket: "[20.5, 21.3) req/s".
func bracketText(lo, hi float64) string {
	h := "inf"
	if !math.IsInf(hi, 1) && !math.IsNaN(hi) {
		h = strconv.FormatFloat(hi, 'f', 2, 64)
	}
	return "[" + strconv.FormatFloat(lo, 'f', 2, 64) + ", " + h + ") req/s"
}

// FromScreen turns a TP screen into a Screen run.
func FromScreen(s screen.Study, rep *screen.Report) *Run {
	r := &Run{Kind: Screen, Screen: rep, CommonRate: s.CommonRate, SLO: sloFrom(s.Criteria.SLO, s.Criteria.Target)}
	d := s.Engine.Deployment
	var cands []string
	for _, c := range s.Candidates {
		cands = append(cands, c.Spec())
	}
	r.Setup = []Field{{"model", d.Model.Name}, {"gpu", d.GPU.Name}, {"candidates", strings.Join(cands, ", ")}}
	if r.SLO != nil {
		r.Setup = append(r.Setup, Field{"slo", r.SLO.Text() + ", target " + short(r.SLO.Target)})
	}
	r.Setup = append(r.Setup, Field{"replications", fmt.Sprintf("%d (%d near the answer)", s.Replications, s.BoundaryReplications)},
		Field{"requests", fmt.Sprintf("%d (%d warm-up)", s.Requests, s.Warmup)})
	if s.CommonRate > 0 {
		r.Setup = append(r.Setup, Field{"common_rate", short(s.CommonRate) + " req/s"})
	}
	return r
}

// short writes v in its shortest form.
func short(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// FromBench turns one servesim bench run into a Bench run labelled
// label, from the result document vllmbench writes (vllmbench.NewDocument)
// and the run's records, without writing the file and reading it back:
// the same setup, metrics, samples, series, SLO and verdict that Parse
// reads from the run's result file (TestFromBenchIsItsFile). A setup value
// is shown as the file writes it (Python's 10.0 for vLLM's floats).
func FromBench(d *vllmbench.Document, res *sim.Result, label string) *Run {
	r := &Run{Label: label, Kind: Bench}
	p := Point{Runs: 1, Metrics: map[string]float64{}, X: math.NaN()}
	has := map[string]any{} // the members by key, setup and results
	setup := func(m vllmbench.Member) {
		has[m.Key] = m.Value
		if isList(m.Value) {
			return
		}
		r.Setup = append(r.Setup, Field{m.Key, setupText(m.Value)})
	}
	result := func(m vllmbench.Member) {
		has[m.Key] = m.Value
		switch m.Key {
		case "stability", "slo", "stopped_by":
			return
		}
		if x, ok := jsonNumber(m.Value); ok && !math.IsInf(x, 0) {
			p.Metrics[m.Key] = x
			p.Keys = append(p.Keys, m.Key)
		}
	}
	inSetup := true
	for _, m := range d.Top {
		inSetup = inSetup && m.Key != "duration"
		if inSetup {
			setup(m)
		} else {
			result(m)
		}
	}
	for _, m := range d.Setup {
		setup(m)
	}
	for _, m := range d.Servesim {
		result(m)
	}
	if res.Stability.Unstable {
		p.Unstable = 1
	}
	if s, ok := has["slo"].(metrics.SLO); ok {
		r.SLO = sloFrom(s, 0)
	}
	if g, ok := has["goodput"].(map[string]float64); ok && g != nil {
		r.SLO = &SLO{TTFT: g["ttft"], TPOT: g["tpot"], E2EL: g["e2el"]}
	}
	if r.SLO != nil {
		r.SLO.Target = 0.99
		if t, ok := jsonNumber(has["slo_target"]); ok && t > 0 {
			r.SLO.Target = t
		}
		if a, ok := p.Metric("slo_attainment"); ok {
			p.Attainment = []float64{a}
		}
		p.Pass = r.SLO.Criteria().Judge(res, res.RequestRate).Pass
	}
	p.Samples = benchSamples(res, has)
	if s, ok := has["series"].([]*metrics.Series); ok {
		p.Series = s
	}
	r.Points = []Point{p}
	return r
}

// benchSamples are the latency samples, ms, of a bench run's measured
// requests that its file's lists give (see samples): E2E from vLLM's
// latencies (always written), TTFT and ITL from its ttfts and itls, TPOT
// from servesim's tpots (these three only with --save-detailed), each of
// the completed requests; members says which lists the file has.
func benchSamples(res *sim.Result, members map[string]any) map[string][]float64 {
	out := map[string][]float64{}
	_, ttfts := members["ttfts"]
	_, itls := members["itls"]
	_, tpots := members["tpots"]
	for i := range res.Requests {
		q := &res.Requests[i]
		if q.Warmup || q.Status != metrics.Completed {
			continue
		}
		if v := q.E2E(); v > 0 {
			out["e2el"] = append(out["e2el"], 1000*v)
		}
		if v := q.TTFT(); ttfts && v > 0 {
			out["ttft"] = append(out["ttft"], 1000*v)
		}
		if itls {
			for _, g := range res.TokenGaps(q) {
				out["itl"] = append(out["itl"], 1000*g)
			}
		}
		if v, ok := q.TPOT(); tpots && ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out["tpot"] = append(out["tpot"], 1000*v)
		}
	}
	return out
}

// isList reports whether v is a slice or an array, which the file
// writes as a JSON array and the setup table leaves out.
func isList(v any) bool {
	if v == nil {
		return false
	}
	k := reflect.ValueOf(v).Kind()
	return k == reflect.Slice || k == reflect.Array
}

// setupText is a setup value as the setup table shows a file's: strings
// bare, null (and a non-finite float, which the file writes as null) as
// "—", anything else as the file encodes it, compact.
func setupText(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		v = nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return valueText(b)
}
