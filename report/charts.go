package report

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/report/chart"
)

// latencyMetrics are vLLM's latency metrics: key and name.
var latencyMetrics = []struct{ key, name string }{
	{"ttft", "TTFT"}, {"tpot", "TPOT"}, {"itl", "ITL"}, {"e2el", "E2EL"},
}

// A curve is one line of a sweep chart: a sweep run, or benchmarks of
// one setup at several rates or concurrencies.
type curve struct {
	label  string
	style  int
	param  string // the swept field
	points []*Point
	slo    *SLO
	run    *styled // the sweep run it draws; nil for gathered benchmarks
}

// axisKey groups curves whose x axes mean the same thing.
func axisKey(param string) string {
	switch n := paramName(param); n {
	case "rate", "request_rate":
		return "rate"
	case "clients", "max_concurrency":
		return "concurrency"
	default:
		return n
	}
}

// paramAxes name and give units to the axes of well-known swept fields.
var paramAxes = map[string]chart.Axis{
	"rate":                   {Label: "request rate", Unit: "req/s"},
	"request_rate":           {Label: "request rate", Unit: "req/s"},
	"clients":                {Label: "concurrency", Unit: "closed-loop clients"},
	"max_concurrency":        {Label: "max concurrency", Unit: "requests in flight"},
	"burstiness":             {Label: "burstiness", Unit: "Gamma shape of arrival gaps"},
	"max_num_seqs":           {Label: "max_num_seqs", Unit: "sequences"},
	"max_num_batched_tokens": {Label: "max_num_batched_tokens", Unit: "tokens"},
	"tensor_parallel_size":   {Label: "tensor-parallel size", Unit: "GPUs"},
	"replicas":               {Label: "replicas", Unit: "engines"},
	"input":                  {Label: "input length", Unit: "tokens"},
	"output":                 {Label: "output length", Unit: "tokens"},
	"kv_cache_memory":        {Label: "KV-cache memory", Unit: "bytes"},
	"gpu_memory_utilization": {Label: "GPU memory utilization", Unit: "fraction"},
	"block_size":             {Label: "block size", Unit: "tokens"},
	"servers":                {Label: "servers", Unit: "count"},
	"request_overhead_ms":    {Label: "request overhead", Unit: "ms"},
}

// paramAxis returns the axis of a swept field.
func paramAxis(param string) chart.Axis {
	if a, ok := paramAxes[paramName(param)]; ok {
		return a
	}
	return chart.Axis{Label: paramName(param), Unit: "as set in the scenario"}
}

// styled pairs the runs with their styles: run i draws in style i in
// every chart.
type styled struct {
	*Run
	style int
}

func withStyles(runs []*Run) []styled {
	out := make([]styled, len(runs))
	for i, r := range runs {
		out[i] = styled{r, i}
	}
	return out
}

// single returns the runs that are one benchmark.
func single(runs []styled) []styled {
	var out []styled
	for _, r := range runs {
		if r.Kind == Bench && len(r.Points) == 1 {
			out = append(out, r)
		}
	}
	return out
}

// curves returns the sweep curves: every sweep run, then benchmarks of one setup gathered by what differs between
// them (request_rate or max_concurrency).
func curves(runs []styled) []curve {
	var out []curve
	for _, r := range runs {
		if r.Kind != Sweep || len(r.Points) == 0 {
			continue
		}
		c := curve{label: r.Label, style: r.style, param: r.Param, slo: r.SLO, run: &r}
		for i := range r.Points {
			c.points = append(c.points, &r.Points[i])
		}
		out = append(out, c)
	}
	groups := map[string][]styled{}
	var order []string
	for _, r := range single(runs) {
		k := r.Source.String() + "\x00" + r.Get("model_id") + "\x00" + r.Get("backend") + "\x00" + r.Get("gpu") + "\x00" + r.Get("tensor_parallel_size")
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	for _, k := range order {
		g := groups[k]
		if len(g) < 2 {
			continue
		}
		for _, key := range []string{"request_rate", "max_concurrency"} {
			xs := map[string]bool{}
			for _, r := range g {
				xs[r.Get(key)] = true
			}
			if len(xs) < 2 {
				continue
			}
			c := curve{label: fmt.Sprintf("%s (%s)", g[0].Get("model_id"), g[0].Source), style: g[0].style, param: key, slo: g[0].SLO}
			sort.SliceStable(g, func(i, j int) bool { return setupNumber(g[i].Run, key) < setupNumber(g[j].Run, key) })
			for _, r := range g {
				p := r.Points[0]
				p.Value, p.X = r.Get(key), setupNumber(r.Run, key)
				c.points = append(c.points, &p)
			}
			out = append(out, c)
			break
		}
	}
	return out
}

func setupNumber(r *Run, key string) float64 {
	v, err := strconv.ParseFloat(r.Get(key), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// numeric reports whether every point of c has a numeric swept value.
func (c curve) numeric() bool {
	for _, p := range c.points {
		if math.IsNaN(p.X) {
			return false
		}
	}
	return len(c.points) > 0
}

// metricLine is one curve's metric against the swept value.
func (c curve) metricLine(key, suffix string, dashed bool) chart.Line {
	l := chart.Line{Name: c.label + suffix, Style: c.style, Dashed: dashed, Markers: true}
	for _, p := range c.points {
		l.Points = append(l.Points, chart.XY{X: p.X, Y: p.value(key)})
	}
	return l
}

func lineValues(ls []chart.Line, y bool) []float64 {
	var vs []float64
	for _, l := range ls {
		for _, p := range l.Points {
			if y {
				vs = append(vs, p.Y)
			} else {
				vs = append(vs, p.X)
			}
		}
	}
	return vs
}

// withData keeps the charts that have something to draw.
func withData(cs ...*chart.Chart) []*chart.Chart {
	var out []*chart.Chart
	for _, c := range cs {
		if c != nil && c.HasData() {
			out = append(out, c)
		}
	}
	return out
}

// versusCharts draws the curves that share an x axis: output throughput,
// TTFT, TPOT and ITL (p50 dashed, p99 solid) against the swept value.
func versusCharts(cs []curve) []*chart.Chart {
	x := paramAxis(cs[0].param)
	x.Log = false
	var xs []float64
	for _, c := range cs {
		for _, p := range c.points {
			xs = append(xs, p.X)
		}
	}
	x.Log = chart.WideSpread(xs)
	out := []*chart.Chart{{
		Title: "Output throughput vs " + x.Label, X: x,
		Y: chart.Axis{Label: "output throughput", Unit: "tok/s", Zero: true},
	}}
	for _, c := range cs {
		out[0].Lines = append(out[0].Lines, c.metricLine("output_throughput", "", false))
	}
	var slos []*SLO
	for _, c := range cs {
		slos = append(slos, c.slo)
	}
	for _, m := range latencyMetrics[:3] {
		ch := &chart.Chart{Title: m.name + " vs " + x.Label, X: x, Y: chart.Axis{Label: m.name, Unit: "ms", Zero: true}}
		for _, c := range cs {
			ch.Lines = append(ch.Lines, c.metricLine("p99_"+m.key+"_ms", " p99", false), c.metricLine("median_"+m.key+"_ms", " p50", true))
		}
		for _, b := range sloBounds(slos, m.key, m.name) {
			ch.Rules = append(ch.Rules, chart.Rule{Name: b.name, Y: b.ms})
		}
		if chart.WideSpread(lineValues(ch.Lines, true)) {
			ch.Y.Log, ch.Y.Zero = true, false
		}
		out = append(out, ch)
	}
	return withData(out...)
}

// throughputLatency is p99 TTFT against output throughput, each point
// labelled with its swept value.
func throughputLatency(cs []curve) *chart.Chart {
	ch := &chart.Chart{
		Title: "Throughput vs latency",
		X:     chart.Axis{Label: "output throughput", Unit: "tok/s"},
		Y:     chart.Axis{Label: "p99 TTFT", Unit: "ms"},
	}
	for _, c := range cs {
		l := chart.Line{Name: c.label, Style: c.style, Markers: true}
		for _, p := range c.points {
			l.Points = append(l.Points, chart.XY{X: p.value("output_throughput"), Y: p.value("p99_ttft_ms")})
			l.Labels = append(l.Labels, p.Value)
		}
		ch.Lines = append(ch.Lines, l)
	}
	if len(cs) == 1 {
		ch.Lines[0].Name = ""
	}
	ch.Y.Log = chart.WideSpread(lineValues(ch.Lines, true))
	return ch
}

// itlByConcurrency is ITL p50 and p99 against the concurrency.
func itlByConcurrency(cs []curve) *chart.Chart {
	x := paramAxis(cs[0].param)
	ch := &chart.Chart{Title: "Inter-token latency by concurrency", X: x, Y: chart.Axis{Label: "ITL", Unit: "ms", Zero: true}}
	for _, c := range cs {
		ch.Lines = append(ch.Lines, c.metricLine("p99_itl_ms", " p99", false), c.metricLine("median_itl_ms", " p50", true))
	}
	if len(cs) == 1 {
		ch.Lines[0].Name, ch.Lines[1].Name = "p99", "p50"
	}
	ch.X.Log = chart.WideSpread(lineValues(ch.Lines, false))
	return ch
}

// attainmentChart is each curve's minimum SLO attainment over
// replications against the swept value, the targets as dashed rules, and
// on a rate axis the λ* bracket the points imply, shaded.
func attainmentChart(cs []curve) *chart.Chart {
	var withSLO []curve
	for _, c := range cs {
		if c.slo != nil {
			withSLO = append(withSLO, c)
		}
	}
	if len(withSLO) == 0 {
		return nil
	}
	x := paramAxis(withSLO[0].param)
	ch := &chart.Chart{Title: "SLO attainment vs " + x.Label, X: x, Y: chart.Axis{Label: "SLO attainment, min over runs", Unit: "%", Cap: 100}}
	var targets []float64
	for _, c := range withSLO {
		l := chart.Line{Name: c.label, Style: c.style, Markers: true}
		var judged []capacity.Point
		for _, p := range c.points {
			l.Points = append(l.Points, chart.XY{X: p.X, Y: 100 * p.MinAttainment()})
			judged = append(judged, capacity.Point{Rate: p.X, Pass: p.Pass})
		}
		ch.Lines = append(ch.Lines, l)
		if !slices.Contains(targets, c.slo.Target) {
			targets = append(targets, c.slo.Target)
			ch.Rules = append(ch.Rules, chart.Rule{Name: "target q = " + short(100*c.slo.Target) + "%", Y: 100 * c.slo.Target})
		}
		if axisKey(c.param) == "rate" {
			if b, ok := bracketBand(capacity.Bracket(judged)); ok {
				if len(withSLO) > 1 {
					b.Name = c.label + ": " + b.Name
				}
				ch.Bands = append(ch.Bands, b)
			}
		}
	}
	if len(withSLO) == 1 {
		ch.Lines[0].Name = "min attainment"
	}
	return ch
}

// bracketBand shades a λ* bracket; ok is false when nothing passed.
func bracketBand(lower, upper float64) (chart.Band, bool) {
	switch {
	case lower <= 0:
		return chart.Band{}, false
	case math.IsInf(upper, 1):
		return chart.Band{Name: "λ* ≥ " + fixed2(lower) + " req/s", Lo: lower, Hi: upper}, true
	}
	return chart.Band{Name: "λ* in " + bracketText(lower, upper), Lo: lower, Hi: upper}, true
}

// SweepCharts are the charts of a sweep's plot (servesim run --plot): SLO
// attainment against the swept value with its target (first for a rate
// sweep), the throughput–latency curve, and ITL by concurrency for a
// concurrency sweep. Swept values that are not numbers get only the
// throughput–latency curve.
func SweepCharts(r *Run) []*chart.Chart {
	cs := curves(withStyles([]*Run{r}))
	if len(cs) == 0 { // a benchmark: a curve of one point
		c := curve{label: r.Label, param: r.Param, slo: r.SLO}
		for i := range r.Points {
			c.points = append(c.points, &r.Points[i])
		}
		cs = []curve{c}
	}
	out := []*chart.Chart{throughputLatency(cs)}
	if !cs[0].numeric() || r.Param == "" {
		return out
	}
	if axisKey(r.Param) == "concurrency" {
		out = append(out, itlByConcurrency(cs))
	}
	if a := attainmentChart(cs); a != nil {
		if axisKey(r.Param) == "rate" {
			out = append([]*chart.Chart{a}, out...)
		} else {
			out = append(out, a)
		}
	}
	return out
}

// percentileBars draws, per latency metric, the mean, median and
// percentiles of every single-benchmark run side by side.
func percentileBars(runs []styled) []*chart.Chart {
	var out []*chart.Chart
	for _, m := range latencyMetrics {
		stats := statKeys(runs, m.key)
		if len(stats) == 0 {
			continue
		}
		ch := &chart.Chart{
			Title: m.name + ": mean and percentiles",
			X:     chart.Axis{Label: "statistic", Unit: "over requests"},
			Y:     chart.Axis{Label: m.name, Unit: "ms", Zero: true},
			Bars:  &chart.Bars{Values: len(runs)*len(stats) <= 16},
		}
		for _, s := range stats {
			ch.Bars.Categories = append(ch.Bars.Categories, s.name)
		}
		for _, r := range runs {
			g := chart.BarGroup{Name: r.Label, Style: r.style}
			for _, s := range stats {
				g.Values = append(g.Values, r.Points[0].value(s.key))
			}
			ch.Bars.Groups = append(ch.Bars.Groups, g)
		}
		for _, b := range sloBounds(runSLOs(runs), m.key, m.name) {
			ch.Rules = append(ch.Rules, chart.Rule{Name: b.name, Y: b.ms})
		}
		out = append(out, ch)
	}
	return withData(out...)
}

// runSLOs are the runs' SLOs (nil for a run without one).
func runSLOs(runs []styled) []*SLO {
	var out []*SLO
	for _, r := range runs {
		out = append(out, r.SLO)
	}
	return out
}

// An sloBound is one bound an SLO sets on a latency metric, ms, and its
// name in a chart's legend ("TTFT SLO ≤ 500 ms").
type sloBound struct {
	name string
	ms   float64
}

// sloBounds are the distinct bounds the SLOs (nil ones skipped) set on
// latency metric key (ttft, tpot or e2el; ITL has none), in the order
// first set: the lines a latency chart draws so that a reader sees which
// percentiles pass.
func sloBounds(slos []*SLO, key, name string) []sloBound {
	var out []sloBound
	for _, s := range slos {
		if s == nil {
			continue
		}
		var ms float64
		switch key {
		case "ttft":
			ms = s.TTFT
		case "tpot":
			ms = s.TPOT
		case "e2el":
			ms = s.E2EL
		}
		if ms > 0 && !slices.ContainsFunc(out, func(b sloBound) bool { return b.ms == ms }) {
			out = append(out, sloBound{name + " SLO ≤ " + short(ms) + " ms", ms})
		}
	}
	return out
}

type stat struct{ key, name string }

// statKeys lists the statistics of metric m any run has: mean, median,
// then percentiles in increasing order.
func statKeys(runs []styled, m string) []stat {
	var out []stat
	has := func(key string) bool {
		for _, r := range runs {
			if _, ok := r.Points[0].Metric(key); ok {
				return true
			}
		}
		return false
	}
	for _, s := range []stat{{"mean_" + m + "_ms", "mean"}, {"median_" + m + "_ms", "median"}} {
		if has(s.key) {
			out = append(out, s)
		}
	}
	var ps []float64
	for _, r := range runs {
		for _, k := range r.Points[0].Keys {
			rest, ok := strings.CutPrefix(k, "p")
			if !ok || !strings.HasSuffix(rest, "_"+m+"_ms") {
				continue
			}
			p, err := strconv.ParseFloat(strings.TrimSuffix(rest, "_"+m+"_ms"), 64)
			if err == nil && !slices.Contains(ps, p) && has(k) {
				ps = append(ps, p)
			}
		}
	}
	slices.Sort(ps)
	for _, p := range ps {
		k := strconv.FormatFloat(p, 'f', -1, 64)
		out = append(out, stat{"p" + k + "_" + m + "_ms", "p" + k})
	}
	return out
}

// maxCDFPoints bounds the points of a drawn CDF.
const maxCDFPoints = 400

// cdfs draws the empirical CDF of each latency metric of the runs that
// kept per-request values.
func cdfs(runs []styled) []*chart.Chart {
	var out []*chart.Chart
	for _, m := range latencyMetrics {
		ch := &chart.Chart{
			Title: m.name + " distribution (CDF)",
			X:     chart.Axis{Label: m.name, Unit: "ms"},
			Y:     chart.Axis{Label: "requests at or below", Unit: "%", Zero: true, Cap: 100},
		}
		for _, r := range runs {
			vs := slices.Clone(r.Points[0].Samples[m.key])
			if len(vs) == 0 {
				continue
			}
			slices.Sort(vs)
			ch.Lines = append(ch.Lines, chart.Line{Name: fmt.Sprintf("%s (n = %d)", r.Label, len(vs)), Style: r.style, Step: true, Points: cdfPoints(vs)})
		}
		if len(ch.Lines) == 0 {
			continue
		}
		ch.X.Log = chart.WideSpread(lineValues(ch.Lines, false))
		for _, b := range sloBounds(runSLOs(runs), m.key, m.name) {
			ch.Marks = append(ch.Marks, chart.Mark{Name: b.name, X: b.ms})
		}
		out = append(out, ch)
	}
	return withData(out...)
}

// cdfPoints returns (value, % at or below) of sorted values, thinned to
// maxCDFPoints by rank.
func cdfPoints(sorted []float64) []chart.XY {
	n := len(sorted)
	step := max(1, (n+maxCDFPoints-1)/maxCDFPoints)
	var pts []chart.XY
	for i := 0; i < n; i += step {
		pts = append(pts, chart.XY{X: sorted[i], Y: 100 * float64(i+1) / float64(n)})
	}
	if last := pts[len(pts)-1]; last.Y < 100 {
		pts = append(pts, chart.XY{X: sorted[n-1], Y: 100})
	}
	return pts
}

// seriesCharts draws the server's counters over time: running and
// waiting requests, and KV-cache usage.
func seriesCharts(runs []styled) []*chart.Chart {
	reqs := &chart.Chart{Title: "Running and waiting requests", X: chart.Axis{Label: "simulated time", Unit: "s"}, Y: chart.Axis{Label: "requests", Unit: "count", Zero: true}}
	kv := &chart.Chart{Title: "KV-cache usage", X: chart.Axis{Label: "simulated time", Unit: "s"}, Y: chart.Axis{Label: "KV-cache usage", Unit: "%", Zero: true, Cap: 100}}
	for _, r := range runs {
		for _, s := range r.Points[0].Series {
			name := r.Label
			if len(r.Points[0].Series) > 1 {
				name += " " + s.Name
			}
			col := func(counter string, scale float64) []chart.XY {
				j := slices.Index(s.Names, counter)
				if j < 0 {
					return nil
				}
				var pts []chart.XY
				for i, t := range s.Times[:min(len(s.Times), len(s.Values))] {
					if j < len(s.Values[i]) {
						pts = append(pts, chart.XY{X: t, Y: scale * s.Values[i][j]})
					}
				}
				return pts
			}
			if pts := col("running", 1); pts != nil {
				reqs.Lines = append(reqs.Lines, chart.Line{Name: name + " running", Style: r.style, Points: pts})
			}
			if pts := col("waiting", 1); pts != nil {
				reqs.Lines = append(reqs.Lines, chart.Line{Name: name + " waiting", Style: r.style, Dashed: true, Points: pts})
			}
			if pts := col("kv_cache_usage", 100); pts != nil {
				kv.Lines = append(kv.Lines, chart.Line{Name: name, Style: r.style, Points: pts})
			}
		}
	}
	return withData(reqs, kv)
}

// capacityChart is a capacity run's attainment against rate: each
// replication's, their minimum, the target and the λ* bracket.
func capacityChart(r styled) *chart.Chart {
	ch := &chart.Chart{
		Title: "SLO attainment vs request rate",
		X:     chart.Axis{Label: "request rate", Unit: "req/s"},
		Y:     chart.Axis{Label: "SLO attainment", Unit: "%", Cap: 100},
	}
	runs := chart.Line{Name: "each replication", Style: r.style, NoLine: true}
	minLine := chart.Line{Name: "min over replications", Style: r.style, Markers: true}
	pts := make([]*Point, len(r.Points))
	for i := range r.Points {
		pts[i] = &r.Points[i]
	}
	sort.SliceStable(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
	for _, p := range pts {
		for _, a := range p.Attainment {
			runs.Points = append(runs.Points, chart.XY{X: p.X, Y: 100 * a})
		}
		minLine.Points = append(minLine.Points, chart.XY{X: p.X, Y: 100 * p.MinAttainment()})
	}
	ch.Lines = []chart.Line{runs, minLine}
	if r.SLO != nil {
		ch.Rules = []chart.Rule{{Name: "target q = " + short(100*r.SLO.Target) + "%", Y: 100 * r.SLO.Target}}
	}
	if b, ok := bracketBand(r.Lower, r.Upper); ok {
		ch.Bands = []chart.Band{b}
	}
	ch.X.Log = chart.WideSpread(lineValues(ch.Lines, false))
	return ch
}

// screenCharts are a TP screen's λ* per GPU by candidate (the bracket as
// a whisker) and, with a common rate, goodput per GPU at it.
func screenCharts(r styled) []*chart.Chart {
	rep := r.Screen
	if rep == nil {
		return nil
	}
	lam := &chart.Chart{
		Title: "λ* per GPU by candidate",
		X:     chart.Axis{Label: "candidate", Unit: "TP × replicas"},
		Y:     chart.Axis{Label: "λ* per GPU", Unit: "req/s", Zero: true},
		Bars:  &chart.Bars{Values: true},
	}
	g := chart.BarGroup{Name: "lower end of the λ* bracket, per GPU", Style: r.style}
	good := &chart.Chart{
		Title: fmt.Sprintf("Goodput per GPU at %s req/s", short(r.CommonRate)),
		X:     lam.X,
		Y:     chart.Axis{Label: "goodput per GPU", Unit: "tok/s", Zero: true},
		Bars:  &chart.Bars{Values: true},
	}
	gg := chart.BarGroup{Style: r.style}
	for _, row := range rep.Rows {
		lam.Bars.Categories = append(lam.Bars.Categories, row.Candidate.Spec())
		good.Bars.Categories = append(good.Bars.Categories, row.Candidate.Spec())
		lo, hi, gv := math.NaN(), math.NaN(), math.NaN()
		if row.Feasible() && row.Search != nil {
			lo, hi = row.LowerPerGPU, row.UpperPerGPU
			gv = row.CommonGoodputPerGPU
		}
		g.Values, g.Lo, g.Hi = append(g.Values, lo), append(g.Lo, lo), append(g.Hi, hi)
		gg.Values = append(gg.Values, gv)
	}
	lam.Bars.Groups = []chart.BarGroup{g}
	good.Bars.Groups = []chart.BarGroup{gg}
	if r.CommonRate <= 0 {
		return withData(lam)
	}
	return withData(lam, good)
}

// Charts returns every chart the report of runs draws, in page order:
// percentile bars and CDFs of single benchmarks, sweep charts against
// each swept quantity, capacity charts, counters over time, TP screens.
// Write them with chart.WriteFile.
func Charts(runs ...*Run) []*chart.Chart {
	var out []*chart.Chart
	for _, s := range sections(withStyles(runs)) {
		for _, f := range s.figures {
			out = append(out, f.chart)
		}
	}
	return out
}
