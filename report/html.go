package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"os"
	"strings"

	"github.com/servesim/servesim/report/chart"
)

// Options configure WriteHTML.
type Options struct {
	// Title heads the page; default "servesim report".
	Title string
}

// A section is one part of the page: text, charts, tables.
type section struct {
	ID, Title  string
	Paragraphs []string
	figures    []figure
	Tables     []table
}

type figure struct {
	chart   *chart.Chart
	caption string
}

// sections lays out the page for the runs, in order: setup, summary and
// latency of single benchmarks, sweeps, capacity, counters over time, TP
// screens. A section with nothing to show is left out.
func sections(runs []styled) []section {
	var out []section
	benches := single(runs)
	if len(benches) > 0 {
		out = append(out, section{ID: "summary", Title: "Benchmarks", Tables: []table{setupTable("setup", benches), summaryTable(benches)}})
		lat := section{ID: "latency", Title: "Latency"}
		for _, c := range percentileBars(benches) {
			lat.figures = append(lat.figures, figure{c, c.Y.Label + " of each run: mean, median and the percentiles in its file, ms."})
		}
		for _, c := range cdfs(benches) {
			lat.figures = append(lat.figures, figure{c, "Share of requests whose " + c.X.Label + " is at most x: per-request values of each run that kept them (servesim bench --save-detailed; vLLM's --save-detailed, and its latencies list for E2EL)."})
		}
		if len(lat.figures) > 0 {
			out = append(out, lat)
		}
	}
	out = append(out, sweepSections(runs)...)
	for _, r := range runs {
		if r.Kind != Capacity {
			continue
		}
		s := section{ID: fmt.Sprintf("capacity-%d", r.style), Title: "Capacity: " + r.Label}
		s.Paragraphs = append(s.Paragraphs, capacitySentence(r.Run))
		s.figures = append(s.figures, figure{capacityChart(r), "Each replication's SLO attainment (markers) and their minimum (line) at every probed rate; dashed: the target q; shaded: the λ* bracket."})
		s.Tables = append(s.Tables, setupTable(fmt.Sprintf("setup-%d", r.style), []styled{r}), capacityTable(r))
		out = append(out, s)
	}
	if charts := seriesCharts(benches); len(charts) > 0 {
		s := section{ID: "over-time", Title: "Over time"}
		for _, c := range charts {
			s.figures = append(s.figures, figure{c, c.Title + " against simulated time, as the engine sampled them (at most 512 samples a run; warm-up included)."})
		}
		out = append(out, s)
	}
	for _, r := range runs {
		if r.Kind != Screen || r.Screen == nil {
			continue
		}
		s := section{ID: fmt.Sprintf("tp-%d", r.style), Title: "Tensor parallelism versus replicas: " + r.Label}
		s.Paragraphs = append(s.Paragraphs, "Verdict: "+r.Screen.Verdict())
		for _, c := range screenCharts(r) {
			s.figures = append(s.figures, figure{c, c.Title + "; the whisker spans the λ* bracket, per GPU. Candidates that cannot run have no bar."})
		}
		s.Tables = append(s.Tables, setupTable(fmt.Sprintf("setup-%d", r.style), []styled{r}), screenTable(r))
		out = append(out, s)
	}
	return out
}

// sweepSections are one section per swept quantity (rate, concurrency,
// ...): the charts of every curve against it, then each sweep run's setup
// and table. Curves whose values are not numbers get the
// throughput–latency chart alone.
func sweepSections(runs []styled) []section {
	cs := curves(runs)
	var out []section
	byAxis := map[string][]curve{}
	var axes []string
	for _, c := range cs {
		k := axisKey(c.param)
		if !c.numeric() {
			k = "other"
		}
		if _, ok := byAxis[k]; !ok {
			axes = append(axes, k)
		}
		byAxis[k] = append(byAxis[k], c)
	}
	for _, k := range axes {
		group := byAxis[k]
		x := paramAxis(group[0].param)
		s := section{ID: "sweep-" + strings.ReplaceAll(k, "_", "-"), Title: "Sweep over " + x.Label}
		if k == "other" {
			s.Title = "Other runs"
			for _, c := range group {
				s.figures = append(s.figures, figure{throughputLatency([]curve{c}), "p99 TTFT against output throughput, each point labelled with its " + paramName(c.param) + "."})
			}
		} else {
			if a := attainmentChart(group); a != nil {
				s.figures = append(s.figures, figure{a, "Lowest SLO attainment over each point's replications against " + x.Label + "; dashed: the target q. A point passes when every replication passes capacity's rule (attainment ≥ q, failures ≤ 0.1%, send rate within 5%, stable); on a rate axis, λ* lies between the largest passing rate and the smallest failing one (shaded)."})
			}
			for _, c := range versusCharts(group) {
				caption := c.Y.Title() + " against " + x.Label + ", means over replications"
				if len(c.Lines) > len(group) {
					caption += "; p99 solid, p50 dashed"
				}
				s.figures = append(s.figures, figure{c, caption + "."})
			}
			s.figures = append(s.figures, figure{throughputLatency(group), "p99 TTFT against output throughput, each point labelled with its " + x.Label + ": how much latency each extra token/s costs."})
		}
		for _, c := range group {
			if c.run != nil {
				s.Tables = append(s.Tables, setupTable(fmt.Sprintf("setup-%d", c.run.style), []styled{*c.run}), sweepTable(*c.run))
			}
		}
		out = append(out, s)
	}
	return out
}

// capacitySentence states a capacity run's answer.
func capacitySentence(r *Run) string {
	target := ""
	if r.SLO != nil {
		target = fmt.Sprintf(" with %s for at least %s%% of requests in every replication", r.SLO.Text(), short(100*r.SLO.Target))
	}
	switch {
	case r.Lower <= 0:
		return fmt.Sprintf("No probed rate passed%s: λ* is below %s req/s.", target, fixed2(r.Upper))
	case r.Upper > 1e300:
		return fmt.Sprintf("Every probed rate passed%s: λ* is at least %s req/s.", target, fixed2(r.Lower))
	}
	return fmt.Sprintf("λ*, the largest rate sustained%s, lies in %s: the minimum over replications, a conservative envelope rather than a confidence interval.", target, bracketText(r.Lower, r.Upper))
}

// page is what the template renders.
type page struct {
	Title    string
	CSS      template.CSS
	Runs     []runItem
	Sections []pageSection
}

type runItem struct {
	Label, Source, Kind, File string
	Swatch                    template.CSS
}

type pageSection struct {
	section
	Figures []pageFigure
}

type pageFigure struct {
	ID      string
	SVG     template.HTML
	Caption string
}

// WriteHTML writes one self-contained HTML page about the runs: setup,
// vLLM's summary table, percentile bars and CDFs of single benchmarks,
// throughput and latency against each swept quantity (several runs
// overlaid: simulated against measured), SLO attainment against rate with
// the λ* bracket shaded, counters over time and TP screens. The charts are
// inline SVG; the page has no script and fetches nothing, so it works from
// a file:// URL and offline. Run i draws in chart.Palette[i] everywhere.
func WriteHTML(w io.Writer, runs []*Run, opts Options) error {
	if len(runs) == 0 {
		return fmt.Errorf("report: no runs")
	}
	p := page{Title: opts.Title, CSS: template.CSS(pageCSS)}
	if p.Title == "" {
		p.Title = "servesim report"
	}
	st := withStyles(runs)
	for _, r := range st {
		c := chart.Colour(r.style)
		p.Runs = append(p.Runs, runItem{Label: r.Label, Source: r.Source.String(), Kind: r.Kind.String(), File: r.File,
			Swatch: template.CSS(fmt.Sprintf("background-color: #%02x%02x%02x", c.R, c.G, c.B))})
	}
	n := 0
	for _, s := range sections(st) {
		ps := pageSection{section: s}
		for _, f := range s.figures {
			var b bytes.Buffer
			if err := chart.InlineSVG(&b, 1, f.chart); err != nil {
				return err
			}
			n++
			ps.Figures = append(ps.Figures, pageFigure{ID: fmt.Sprintf("fig-%d", n), SVG: template.HTML(b.String()), Caption: f.caption})
		}
		p.Sections = append(p.Sections, ps)
	}
	return pageTemplate.Execute(w, p)
}

// WriteFile writes the report of runs to path.
func WriteFile(path string, runs []*Run, opts Options) error {
	var b bytes.Buffer
	if err := WriteHTML(&b, runs, opts); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

const pageCSS = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 'Liberation Sans', Arial, Helvetica, sans-serif; color: #222; background: #fff; }
header, main, footer { max-width: 1320px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 20px; border-bottom: 1px solid #ddd; }
h1 { font-size: 26px; margin: 0 0 8px; }
h2 { font-size: 20px; margin: 28px 0 10px; padding-bottom: 4px; border-bottom: 1px solid #eee; }
ul.runs { list-style: none; padding: 0; margin: 8px 0 16px; }
ul.runs li { margin: 3px 0; }
.swatch { display: inline-block; width: 14px; height: 14px; border-radius: 3px; vertical-align: -2px; margin-right: 6px; }
.tag { font-size: 12px; padding: 1px 6px; border-radius: 8px; background: #eef; margin: 0 4px; }
.tag.measured { background: #fde8d8; }
code { font: 13px 'Liberation Mono', Menlo, Consolas, monospace; color: #444; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(470px, 1fr)); gap: 18px; margin: 12px 0; }
figure { margin: 0; border: 1px solid #e4e4e4; border-radius: 6px; padding: 6px; background: #fff; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { font-size: 13px; color: #555; padding: 4px 6px 2px; }
.tables { display: flex; flex-wrap: wrap; gap: 8px 28px; align-items: flex-start; }
.table-wrap { overflow-x: auto; max-width: 100%; margin: 12px 0 16px; }
table { border-collapse: collapse; font-size: 13px; }
caption { text-align: left; color: #555; font-size: 13px; padding: 4px 0; caption-side: top; contain: inline-size; }
th, td { padding: 3px 8px; border-bottom: 1px solid #eee; text-align: left; vertical-align: top; }
th { background: #f6f6f6; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.pass { color: #00704f; font-weight: 600; }
td.fail { color: #b14400; font-weight: 600; }
th code, td code { margin-left: 8px; font-size: 12px; font-weight: normal; color: #777; }
footer { color: #777; font-size: 13px; padding: 24px; border-top: 1px solid #ddd; margin-top: 32px; }
`

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="servesim report">
<link rel="icon" href="data:,">
<title>{{.Title}}</title>
<style>{{.CSS}}</style>
</head>
<body>
<header>
<h1>{{.Title}}</h1>
<ul class="runs">
{{- range .Runs}}
<li><span class="swatch" style="{{.Swatch}}"></span><strong>{{.Label}}</strong><span class="tag {{.Source}}">{{.Source}}</span>{{.Kind}}{{with .File}} · <code>{{.}}</code>{{end}}</li>
{{- end}}
</ul>
</header>
<main>
{{- range .Sections}}
<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{- range .Paragraphs}}
<p>{{.}}</p>
{{- end}}
{{- if .Figures}}
<div class="charts">
{{- range .Figures}}
<figure id="{{.ID}}">
{{.SVG}}<figcaption>{{.Caption}}</figcaption>
</figure>
{{- end}}
</div>
{{- end}}
{{- if .Tables}}
<div class="tables">
{{- end}}
{{- range .Tables}}
<div class="table-wrap">
<table id="{{.ID}}">
<caption>{{.Caption}}</caption>
<thead><tr>{{range .Head}}<th{{with .Key}} data-key="{{.}}"{{end}}{{with .Class}} class="{{.}}"{{end}}>{{.Text}}{{with .Code}}<code>{{.}}</code>{{end}}</th>{{end}}</tr></thead>
<tbody>
{{- range .Rows}}
<tr>{{range $i, $c := .}}{{if eq $i 0}}<th scope="row"{{with $c.Key}} data-key="{{.}}"{{end}}>{{$c.Text}}{{with $c.Code}}<code>{{.}}</code>{{end}}</th>{{else}}<td{{with $c.Key}} data-key="{{.}}"{{end}}{{with $c.Class}} class="{{.}}"{{end}}>{{$c.Text}}</td>{{end}}{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{- end}}
{{- if .Tables}}
</div>
{{- end}}
</section>
{{- end}}
</main>
<footer>Written by <code>servesim report</code>: one file with its charts inline, no scripts, nothing fetched from the network.</footer>
</body>
</html>
`))
