package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/internal/jsonobj"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/vllmbench"
)

// ErrFormat is wrapped by the errors of files that are not a result
// servesim knows.
var ErrFormat = errors.New("not a result file")

// Load reads one result file:
//   - the JSON of servesim bench --save-result (with --save-detailed, its
//     per-request arrays and time series too);
//   - the JSON of servesim run --format json, of a shard, or of servesim
//     merge (format servesim-run/1): a sweep;
//   - the JSON of servesim capacity --json: probes and the λ* bracket;
//   - a vllm bench serve result JSON (--save-result, --save-detailed),
//     or several appended with --append-result: a sweep over the rate,
//     concurrency or burstiness that differs between them.
//
// The run's label is the file's name without its extension.
func Load(path string) (*Run, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	r, err := Parse(data, path)
	if err != nil {
		return nil, err
	}
	r.File = path
	return r, nil
}

// ReadRuns loads the files, in order.
func ReadRuns(paths ...string) ([]*Run, error) {
	runs := make([]*Run, 0, len(paths))
	for _, p := range paths {
		r, err := Load(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// Parse reads a result from data (see Load); name labels the run and its
// errors.
func Parse(data []byte, name string) (*Run, error) {
	raws, err := vllmbench.DecodeResults(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %v", name, ErrFormat, err)
	}
	var objs []jsonobj.Object
	for _, raw := range raws {
		o, err := jsonobj.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %v", name, ErrFormat, err)
		}
		objs = append(objs, o)
	}
	if len(objs) == 0 {
		return nil, fmt.Errorf("%s: %w: empty", name, ErrFormat)
	}
	label := strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
	first := objs[0]
	var r *Run
	switch {
	case str(first.Get("format")) == scenario.RunFormat:
		r, err = parseRunOutput(first)
	case str(first.Get("kind")) == "servesim-capacity-grid":
		err = errors.New("a servesim capacity --grid --shard file: join the shards with servesim capacity --merge --json first")
	case first.Get("criteria") != nil && first.Get("points") != nil:
		r, err = parseCapacity(first)
	case first.Get("duration") != nil && first.Get("completed") != nil:
		r, err = parseBenches(objs)
	default:
		err = fmt.Errorf("%w: want the JSON of servesim bench --save-result, run --format json, merge or capacity --json, or a vllm bench serve result", ErrFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r.Label = label
	return r, nil
}

// str decodes a JSON string ("" when it is not one).
func str(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// number decodes a JSON number, "inf" or null (NaN), and says whether it
// was one of these.
func number(raw json.RawMessage) (float64, bool) {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "null":
		return math.NaN(), true
	case `"inf"`:
		return math.Inf(1), true
	}
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil
}

// valueText writes a JSON value for the setup table: strings bare, null
// as "—", numbers as written, objects compact.
func valueText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if string(raw) == "null" {
		return "—"
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// benchObject is one bench or vLLM result, split into setup and numbers.
type benchObject struct {
	setup    []Field
	setupRaw map[string]json.RawMessage
	point    Point
	slo      *SLO
	servesim bool
}

// parseBench splits a result object: keys before duration describe the
// setup (vLLM's header and servesim's description of the simulated
// server), numbers after it are metrics, and the per-request arrays
// become samples.
func parseBench(o jsonobj.Object) (*benchObject, error) {
	b := &benchObject{setupRaw: map[string]json.RawMessage{}}
	p := &b.point
	p.Runs, p.Metrics, p.X = 1, map[string]float64{}, math.NaN()
	arrays := map[string]json.RawMessage{}
	var stoppedBy, rate json.RawMessage // a sim.Result's stopped_by and request_rate
	// result files one member of the results: an array (per-request
	// values), the stability verdict, the SLO, or a number.
	result := func(m jsonobj.Member) {
		raw := bytes.TrimSpace(m.Value)
		if m.Key == "request_rate" {
			rate = raw
		}
		switch {
		case len(raw) > 0 && raw[0] == '[':
			arrays[m.Key] = raw
		case m.Key == "stability":
			var st metrics.Stability
			if json.Unmarshal(raw, &st) == nil && st.Unstable {
				p.Unstable = 1
			}
		case m.Key == "stopped_by":
			stoppedBy = raw
		case m.Key == "slo":
			var s metrics.SLO
			if json.Unmarshal(raw, &s) == nil && s.Set() {
				b.slo = sloFrom(s, 0)
			}
		default:
			if v, ok := number(raw); ok && !math.IsInf(v, 0) {
				p.Metrics[m.Key] = v
				p.Keys = append(p.Keys, m.Key)
			}
		}
	}
	setup := func(m jsonobj.Member) {
		raw := bytes.TrimSpace(m.Value)
		if len(raw) > 0 && raw[0] == '[' {
			return
		}
		b.setup = append(b.setup, Field{m.Key, valueText(raw)})
		b.setupRaw[m.Key] = raw
	}
	inSetup := o.Get("backend") != nil // a sim.Result's JSON has no header
	for _, m := range o {
		if m.Key == "duration" {
			inSetup = false
		}
		if m.Key == "servesim" {
			continue
		}
		if inSetup {
			setup(m)
			continue
		}
		result(m)
	}
	// servesim's bench files keep their own fields under one key, so that
	// vLLM's tooling reads the rest: the simulated setup first, up to and
	// including slo_target, then servesim's results and per-request lists.
	if raw := o.Get("servesim"); raw != nil {
		inner, err := jsonobj.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("servesim: %v", err)
		}
		b.servesim = true
		inSetup := inner.Get("slo_target") != nil
		for _, m := range inner {
			if inSetup {
				setup(m)
				inSetup = m.Key != "slo_target"
				continue
			}
			result(m)
		}
	}
	b.servesim = b.servesim || str(o.Get("backend")) == "servesim" || o.Get("backend") == nil
	if g := b.setupRaw["goodput"]; g != nil && string(g) != "null" {
		var ms map[string]float64
		if err := json.Unmarshal(g, &ms); err != nil {
			return nil, fmt.Errorf("goodput: %v", err)
		}
		b.slo = &SLO{TTFT: ms["ttft"], TPOT: ms["tpot"], E2EL: ms["e2el"]}
	}
	if b.slo != nil {
		b.slo.Target = 0.99
		if t, ok := number(b.setupRaw["slo_target"]); ok && t > 0 {
			b.slo.Target = t
		}
		if a, ok := p.Metric("slo_attainment"); ok {
			p.Attainment = []float64{a}
		}
		// A servesim result is judged by capacity's rule, as run and
		// capacity judge it; a measured file has only its attainment.
		p.Pass = p.MinAttainment() >= b.slo.Target && p.Unstable == 0
		if b.setupRaw["request_rate"] != nil {
			rate = b.setupRaw["request_rate"] // vLLM's header
		}
		if rec, ok := b.record(rate, stoppedBy); ok {
			p.Pass = b.slo.Criteria().JudgeRecord(rec).Pass
		}
	}
	var err error
	p.Samples, p.Series, err = samples(arrays, b.servesim)
	return b, err
}

// record is what capacity's rule judges of a servesim result (the
// fields capacity.ParseRecord reads of a sim.Result), and whether the
// result has them: a measured file has not.
func (b *benchObject) record(rateRaw, stoppedBy json.RawMessage) (capacity.Record, bool) {
	m := b.point.Metrics
	need := []string{"slo_attainment", "failed", "measured", "send_rate", "arrival_rate"}
	for _, k := range need {
		if _, ok := m[k]; !ok {
			return capacity.Record{}, false
		}
	}
	rate, ok := number(rateRaw)
	if !ok {
		return capacity.Record{}, false
	}
	rec := capacity.Record{Attainment: m["slo_attainment"], Failed: int(m["failed"]), Measured: int(m["measured"]),
		Injected: int(m["num_requests"]), SendRate: m["send_rate"], ArrivalRate: m["arrival_rate"], RequestRate: rate}
	rec.Stability.Unstable = b.point.Unstable > 0
	if stoppedBy != nil && json.Unmarshal(stoppedBy, &rec.StoppedBy) != nil {
		return capacity.Record{}, false
	}
	return rec, true
}

// samples turns the per-request arrays into latency samples in ms:
// vLLM's ttfts, itls and latencies (0 or empty for failed requests,
// which errors marks), TPOT derived as vLLM does, (latency −
// ttft)/(output_len − 1) for outputs of more than one token; a servesim
// result's own ttfts, tpots and e2els (null for requests that did not
// complete) where it has no vLLM lists. A servesim bench file has both:
// vLLM's lists at the top level, its own under "servesim"; its TTFT, ITL
// and E2E come from vLLM's lists, as a measured file's do, and its TPOT
// from its own tpots.
func samples(arrays map[string]json.RawMessage, servesim bool) (map[string][]float64, []*metrics.Series, error) {
	var series []*metrics.Series
	if raw, ok := arrays["series"]; ok {
		if err := json.Unmarshal(raw, &series); err != nil {
			return nil, nil, fmt.Errorf("series: %v", err)
		}
	}
	floats := func(key string) ([]*float64, error) {
		raw, ok := arrays[key]
		if !ok {
			return nil, nil
		}
		var vs []*float64
		if err := json.Unmarshal(raw, &vs); err != nil {
			return nil, fmt.Errorf("%s: %v", key, err)
		}
		return vs, nil
	}
	out := map[string][]float64{}
	var errs []string
	if raw, ok := arrays["errors"]; ok {
		if err := json.Unmarshal(raw, &errs); err != nil {
			return nil, nil, fmt.Errorf("errors: %v", err)
		}
	}
	ok := func(i int) bool { return i >= len(errs) || errs[i] == "" }
	ms := func(vs []*float64, keep func(int, float64) bool) []float64 {
		var s []float64
		for i, v := range vs {
			if v != nil && keep(i, *v) {
				s = append(s, 1000**v)
			}
		}
		return s
	}
	_, vllmLists := arrays["latencies"]
	if servesim && !vllmLists {
		for key, name := range map[string]string{"ttfts": "ttft", "tpots": "tpot", "e2els": "e2el"} {
			vs, err := floats(key)
			if err != nil {
				return nil, nil, err
			}
			if s := ms(vs, func(int, float64) bool { return true }); len(s) > 0 {
				out[name] = s
			}
		}
		return out, series, nil
	}
	ttfts, err := floats("ttfts")
	if err != nil {
		return nil, nil, err
	}
	lats, err := floats("latencies")
	if err != nil {
		return nil, nil, err
	}
	// A failed request has latency 0 in vLLM's lists.
	good := func(i int, v float64) bool { return ok(i) && v > 0 }
	if s := ms(ttfts, good); len(s) > 0 {
		out["ttft"] = s
	}
	if s := ms(lats, good); len(s) > 0 {
		out["e2el"] = s
	}
	if raw, has := arrays["itls"]; has {
		var itls [][]float64
		if err := json.Unmarshal(raw, &itls); err != nil {
			return nil, nil, fmt.Errorf("itls: %v", err)
		}
		var s []float64
		for i, req := range itls {
			if ok(i) {
				for _, v := range req {
					s = append(s, 1000*v)
				}
			}
		}
		if len(s) > 0 {
			out["itl"] = s
		}
	}
	if raw, has := arrays["output_lens"]; has && ttfts != nil && lats != nil {
		var outs []int
		if err := json.Unmarshal(raw, &outs); err != nil {
			return nil, nil, fmt.Errorf("output_lens: %v", err)
		}
		var s []float64
		for i, o := range outs {
			if o > 1 && ok(i) && i < len(ttfts) && i < len(lats) && ttfts[i] != nil && lats[i] != nil {
				s = append(s, 1000*(*lats[i]-*ttfts[i])/float64(o-1))
			}
		}
		if len(s) > 0 {
			out["tpot"] = s
		}
	}
	if servesim {
		tpots, err := floats("tpots")
		if err != nil {
			return nil, nil, err
		}
		if s := ms(tpots, func(int, float64) bool { return true }); len(s) > 0 {
			out["tpot"] = s // servesim's own, not derived
		}
	}
	return out, series, nil
}

// parseBenches reads one result or several appended ones (a sweep over
// whichever of rate, concurrency and burstiness differs).
func parseBenches(objs []jsonobj.Object) (*Run, error) {
	var bs []*benchObject
	for i, o := range objs {
		b, err := parseBench(o)
		if err != nil {
			if len(objs) > 1 {
				return nil, fmt.Errorf("result %d: %w", i+1, err)
			}
			return nil, err
		}
		bs = append(bs, b)
	}
	r := &Run{Kind: Bench, Setup: bs[0].setup, SLO: bs[0].slo}
	if !bs[0].servesim {
		r.Source = Measured
	}
	for _, b := range bs {
		r.Points = append(r.Points, b.point)
	}
	if len(bs) == 1 {
		return r, nil
	}
	r.Kind = Sweep
	for _, key := range []string{"request_rate", "max_concurrency", "burstiness"} {
		vals := map[string]bool{}
		for _, b := range bs {
			vals[string(b.setupRaw[key])] = true
		}
		if len(vals) > 1 {
			r.Param = key
			break
		}
	}
	for i, b := range bs {
		p := &r.Points[i]
		p.Value, p.X = strconv.Itoa(i+1), float64(i+1)
		if r.Param != "" {
			raw := b.setupRaw[r.Param]
			p.Value = valueText(raw)
			p.X, _ = number(raw)
		}
	}
	// The setup rows that differ between the results are the sweep.
	r.Setup = slices.DeleteFunc(r.Setup, func(f Field) bool { return f.Key == r.Param || f.Key == "date" })
	return r, nil
}

// parseRunOutput reads the JSON of servesim run and merge: each point's
// metrics are means over its replications.
func parseRunOutput(o jsonobj.Object) (*Run, error) {
	var f scenario.RunFile
	b, _ := o.MarshalJSON()
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	return FromRunFile(&f)
}

// FromRunFile turns the outcome of `servesim run` or `servesim merge` (a
// scenario.RunFile) into a Sweep run: each point's metrics are means over
// its replications, and with an SLO a point passes when every
// replication passes capacity's rule (capacity.Criteria.Judge). The
// run's label is the scenario's name.
func FromRunFile(head *scenario.RunFile) (*Run, error) {
	r := &Run{Label: head.Scenario, Kind: Sweep, Param: head.Param}
	r.Setup = []Field{{"scenario", head.Scenario}, {"server", head.Server}}
	if head.Param != "" {
		var vs []string
		for _, v := range head.Values {
			vs = append(vs, valueText(v))
		}
		r.Setup = append(r.Setup, Field{"sweep", head.Param + " = " + strings.Join(vs, ", ")})
	}
	r.Setup = append(r.Setup, Field{"replications", strconv.Itoa(head.Replications)},
		Field{"requests", fmt.Sprintf("%d (%d warm-up)", head.Requests, head.Warmup)})
	if head.SLO != nil {
		r.SLO = &SLO{TTFT: head.SLO.TTFTms, TPOT: head.SLO.TPOTms, E2EL: head.SLO.E2ELms, Target: head.SLO.Target}
		r.Setup = append(r.Setup, Field{"slo", r.SLO.Text() + ", target " + short(r.SLO.Target)})
	}
	if head.Shard != "" && head.Shard != "0/1" {
		r.Setup = append(r.Setup, Field{"shard", head.Shard + fmt.Sprintf(" (%d of %d jobs)", len(head.Results), head.Jobs)})
	}
	n := max(len(head.Values), 1)
	r.Points = make([]Point, n)
	sums := make([]map[string]float64, n)
	counts := make([]map[string]int, n)
	for i := range r.Points {
		p := &r.Points[i]
		p.X, p.Metrics = math.NaN(), map[string]float64{}
		if i < len(head.Values) {
			p.Value = valueText(head.Values[i])
			p.X, _ = number(head.Values[i])
		}
		sums[i], counts[i] = map[string]float64{}, map[string]int{}
	}
	failed := make([]bool, n) // a replication of the point fails the rule
	for _, rec := range head.Results {
		if rec.Point < 0 || rec.Point >= n {
			return nil, fmt.Errorf("job %d: point %d out of range [0, %d)", rec.Job, rec.Point, n)
		}
		if r.SLO != nil {
			judged, err := capacity.ParseRecord(rec.Result)
			if err != nil {
				return nil, fmt.Errorf("job %d: %w", rec.Job, err)
			}
			failed[rec.Point] = failed[rec.Point] || !r.SLO.Criteria().JudgeRecord(judged).Pass
		}
		obj, err := jsonobj.Parse(rec.Result)
		if err != nil {
			return nil, fmt.Errorf("job %d: %v", rec.Job, err)
		}
		b, err := parseBench(obj)
		if err != nil {
			return nil, fmt.Errorf("job %d: %w", rec.Job, err)
		}
		p := &r.Points[rec.Point]
		p.Runs++
		p.Unstable += b.point.Unstable
		for _, k := range b.point.Keys {
			if counts[rec.Point][k] == 0 && !slices.Contains(p.Keys, k) {
				p.Keys = append(p.Keys, k)
			}
			sums[rec.Point][k] += b.point.Metrics[k]
			counts[rec.Point][k]++
		}
		if r.SLO != nil {
			if a, ok := b.point.Metric("slo_attainment"); ok {
				p.Attainment = append(p.Attainment, a)
			}
		}
	}
	for i := range r.Points {
		p := &r.Points[i]
		for k, s := range sums[i] {
			p.Metrics[k] = s / float64(counts[i][k])
		}
		p.Pass = r.SLO != nil && p.Runs > 0 && !failed[i]
	}
	return r, nil
}

// parseCapacity reads the JSON of servesim capacity --json.
func parseCapacity(o jsonobj.Object) (*Run, error) {
	var c struct {
		Scenario string            `json:"scenario"`
		Server   string            `json:"server"`
		Criteria capacity.Criteria `json:"criteria"`
		Lower    *float64          `json:"lower"`
		Upper    *float64          `json:"upper"`
		Points   []capacity.Point  `json:"points"`
		Runs     int               `json:"runs"`
		Requests int64             `json:"requests"`
	}
	b, _ := o.MarshalJSON()
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrFormat, err)
	}
	lo, hi := 0.0, math.Inf(1)
	if c.Lower != nil {
		lo = *c.Lower
	}
	if c.Upper != nil {
		hi = *c.Upper
	}
	r := FromCapacity(c.Criteria, c.Points, lo, hi)
	r.Setup = append([]Field{{"scenario", c.Scenario}, {"server", c.Server}}, r.Setup...)
	if c.Runs > 0 {
		r.Setup = append(r.Setup, Field{"simulations", fmt.Sprintf("%d runs, %d requests", c.Runs, c.Requests)})
	}
	return r, nil
}
