package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestHTMLSelfContained: the page references nothing outside itself: no
// script, stylesheet, frame or object; every src and href is empty, a
// #fragment or a data: URL; no URL in its CSS.
func TestHTMLSelfContained(t *testing.T) {
	t.Parallel()
	doc, raw := renderPage(t, allRuns(t))
	for _, name := range []string{"script", "iframe", "object", "embed", "img", "audio", "video", "base"} {
		if n := find(doc, tag(name)); len(n) > 0 {
			t.Errorf("the page has %d <%s> elements", len(n), name)
		}
	}
	urlAttrs := []string{"src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data", "background"}
	for _, n := range find(doc, func(*html.Node) bool { return true }) {
		for _, a := range n.Attr {
			key := a.Key
			if a.Namespace != "" {
				key = a.Namespace + ":" + a.Key
			}
			if !slices.Contains(urlAttrs, key) {
				continue
			}
			if v := a.Val; v != "" && !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "data:") {
				t.Errorf("<%s %s=%q>: an external reference", n.Data, key, v)
			}
		}
		if n.Data == "link" && attr(n, "rel") == "stylesheet" {
			t.Errorf("a stylesheet link")
		}
	}
	for _, s := range find(doc, tag("style")) {
		css := text(s)
		if strings.Contains(css, "url(") || strings.Contains(css, "@import") {
			t.Errorf("the CSS loads something: %q", css)
		}
	}
	for _, proto := range []string{"http://", "https://", "file://"} {
		if strings.Contains(string(raw), proto) {
			t.Errorf("the page contains %q", proto)
		}
	}
}

// TestHTMLCharts: every chart is an inline SVG with a title, two axes
// with tick labels and unit-bearing titles, and at least one data mark;
// the page has one chart per entry of Charts.
func TestHTMLCharts(t *testing.T) {
	t.Parallel()
	runs := allRuns(t)
	doc, _ := renderPage(t, runs)
	svgs := find(doc, func(n *html.Node) bool { return n.Data == "svg" && hasClass("chart")(n) })
	if want := len(Charts(runs...)); len(svgs) != want || want < 20 {
		t.Fatalf("%d charts on the page, Charts returns %d (want at least 20 for every section)", len(svgs), want)
	}
	unit := regexp.MustCompile(`\S \(.+\)$`)
	for i, svg := range svgs {
		first := svg.FirstChild
		for first != nil && first.Type != html.ElementNode {
			first = first.NextSibling
		}
		if first == nil || first.Data != "title" || text(first) == "" {
			t.Errorf("chart %d: no <title> first", i)
			continue
		}
		title := text(first)
		bars := len(find(svg, hasClass("bar"))) > 0
		for _, axis := range []string{"x-axis", "y-axis"} {
			g := find(svg, hasClass(axis))
			if len(g) != 1 {
				t.Errorf("%s: %d %s groups", title, len(g), axis)
				continue
			}
			ticks := find(g[0], hasClass("tick-label"))
			want := 3
			if bars && axis == "x-axis" {
				want = 1 // categories
			}
			if len(ticks) < want {
				t.Errorf("%s: %s has %d tick labels, want at least %d", title, axis, len(ticks), want)
			}
			labels := find(g[0], hasClass("axis-label"))
			if len(labels) != 1 || !unit.MatchString(text(labels[0])) {
				t.Errorf("%s: %s title without a unit", title, axis)
			}
		}
		marks := len(find(svg, func(n *html.Node) bool {
			return hasClass("point")(n) || hasClass("bar")(n) || hasClass("line")(n)
		}))
		if marks == 0 {
			t.Errorf("%s: no data marks", title)
		}
	}
}

// counts are the integer rows of vLLM's summary; percent the fractions
// shown in %.
var (
	counts  = []string{"completed", "failed", "total_input_tokens", "total_output_tokens", "max_concurrent_requests", "preemptions"}
	percent = []string{"slo_attainment", "mean_kv_cache_usage", "max_kv_cache_usage", "mbu", "mfu"}
)

// value is a result file's number under key (at the top level, or in a
// servesim bench file's "servesim" object), and whether it has one.
func value(m map[string]any, key string) (float64, bool) {
	if v, ok := m[key].(float64); ok {
		return v, true
	}
	inner, _ := m["servesim"].(map[string]any)
	v, ok := inner[key].(float64)
	return v, ok
}

// want formats a JSON value as the summary shows it, written
// independently of the package: integers for counts, 2 decimals
// otherwise (times 100 for fractions), "–" when missing or null. A key
// the top level lacks is looked for in a servesim bench file's
// "servesim" object.
func want(m map[string]any, key string) string {
	v, ok := m[key].(float64)
	if inner, has := m["servesim"].(map[string]any); has && m[key] == nil {
		v, ok = inner[key].(float64)
	}
	switch {
	case !ok:
		return "–"
	case slices.Contains(counts, key):
		return strconv.FormatInt(int64(v), 10)
	case slices.Contains(percent, key):
		v *= 100
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// TestHTMLSummaryNumbers: every number of the summary table equals its
// result file's value under the same key, formatted as vLLM's summary
// formats it; the main rows are there.
func TestHTMLSummaryNumbers(t *testing.T) {
	t.Parallel()
	files := []string{benchFile, vllmFile}
	runs, err := ReadRuns(files...)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := renderPage(t, runs)
	rows := tableByID(t, doc, "summary")
	head := rows[0]
	// The simulated run's column, its error against the measured one,
	// then the measured run's.
	wantHead := []string{runs[0].Label, "error vs " + runs[1].Label, runs[1].Label}
	if len(head) != 1+len(wantHead) {
		t.Fatalf("%d columns, want %d", len(head), 1+len(wantHead))
	}
	for i, w := range wantHead {
		if got := cellText(head[i+1]); got != w {
			t.Errorf("column %d is %q, want %q", i+1, got, w)
		}
	}
	sim, measured := readJSON(t, files[0]), readJSON(t, files[1])
	seen := map[string]bool{}
	errors := 0
	for _, row := range rows[1:] {
		for i, col := range []int{1, 3} {
			td := row[col]
			key := attr(td, "data-key")
			if key == "" {
				t.Fatalf("a cell without data-key in row %q", text(row[0]))
			}
			seen[key] = true
			if got, w := cellText(td), want(readJSON(t, files[i]), key); got != w {
				t.Errorf("%s %s: table %q, file %q", runs[i].Label, key, got, w)
			}
		}
		// The error cell: (simulated − measured) / measured from the two
		// files' values, as a signed percentage, "–" where either lacks
		// the key or the measured value is 0.
		key := attr(row[1], "data-key")
		s, sok := value(sim, key)
		m, mok := value(measured, key)
		got := cellText(row[2])
		if !sok || !mok || m == 0 {
			if got != "–" {
				t.Errorf("error vs measured, %s: %q, want – (simulated %v, measured %v)", key, got, s, m)
			}
			continue
		}
		errors++
		var pct float64
		if _, err := fmt.Sscanf(got, "%g%%", &pct); err != nil || (got[0] != '+' && got[0] != '-') {
			t.Errorf("error vs measured, %s: %q is not a signed percentage", key, got)
		} else if w := 100 * (s - m) / m; math.Abs(pct-w) > 0.05+1e-9 {
			t.Errorf("error vs measured, %s: %q, want %.3f%% (simulated %v, measured %v)", key, got, w, s, m)
		}
	}
	if errors < 10 {
		t.Errorf("%d rows with an error against the measured run, want at least 10", errors)
	}
	for _, key := range []string{"completed", "failed", "duration", "request_throughput", "output_throughput",
		"total_token_throughput", "max_concurrent_requests", "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms",
		"mean_tpot_ms", "p99_tpot_ms", "mean_itl_ms", "p99_itl_ms", "p99_e2el_ms", "max_output_tokens_per_s", "slo_attainment"} {
		if !seen[key] {
			t.Errorf("no row for %s", key)
		}
	}
}

// TestHTMLSweepNumbers: each sweep row shows the mean over the point's
// replications of the run JSON's values, and the lowest attainment.
func TestHTMLSweepNumbers(t *testing.T) {
	t.Parallel()
	runs, err := ReadRuns(rateSweepFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := renderPage(t, runs)
	rows := tableByID(t, doc, "sweep-0")
	raw := readJSON(t, rateSweepFile)
	values := raw["values"].([]any)
	if len(rows)-1 != len(values) {
		t.Fatalf("%d rows for %d sweep values", len(rows)-1, len(values))
	}
	checked := 0
	for p, row := range rows[1:] {
		var recs []map[string]any
		for _, r := range raw["results"].([]any) {
			rec := r.(map[string]any)
			if int(rec["point"].(float64)) == p {
				recs = append(recs, rec["result"].(map[string]any))
			}
		}
		if got := cellText(row[0]); got != strconv.FormatFloat(values[p].(float64), 'g', -1, 64) {
			t.Errorf("row %d is point %q, want %v", p, got, values[p])
		}
		for _, td := range row[1:] {
			key := attr(td, "data-key")
			if key == "" {
				continue
			}
			var w float64
			switch key {
			case "slo_attainment":
				w = math.Inf(1)
				for _, rec := range recs {
					w = math.Min(w, 100*rec[key].(float64))
				}
			default:
				for _, rec := range recs {
					w += rec[key].(float64) / float64(len(recs))
				}
				if slices.Contains(percent, key) {
					w *= 100
				}
			}
			if got := cellText(td); got != strconv.FormatFloat(w, 'f', 2, 64) {
				t.Errorf("point %d %s: table %q, file %.4f", p, key, got, w)
			}
			checked++
		}
	}
	if checked < 10*len(values) {
		t.Errorf("only %d numbers checked", checked)
	}
}

// TestHTMLCapacityNumbers: each probe's row shows the file's minimum
// attainment and mean send rate, and the page states the file's bracket.
func TestHTMLCapacityNumbers(t *testing.T) {
	t.Parallel()
	runs, err := ReadRuns(capacityFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ := renderPage(t, runs)
	rows := tableByID(t, doc, "capacity-0")
	raw := readJSON(t, capacityFile)
	points := raw["points"].([]any)
	if len(rows)-1 != len(points) {
		t.Fatalf("%d rows for %d probes", len(rows)-1, len(points))
	}
	for i, row := range rows[1:] {
		pt := points[i].(map[string]any)
		var send float64
		reps := pt["runs"].([]any)
		for _, r := range reps {
			send += r.(map[string]any)["send_rate"].(float64) / float64(len(reps))
		}
		wants := map[string]string{
			"min_attainment": strconv.FormatFloat(100*pt["min_attainment"].(float64), 'f', 2, 64),
			"send_rate":      strconv.FormatFloat(send, 'f', 2, 64),
		}
		for _, td := range row {
			if w, ok := wants[attr(td, "data-key")]; ok && cellText(td) != w {
				t.Errorf("probe %d %s: table %q, file %q", i, attr(td, "data-key"), cellText(td), w)
			}
		}
	}
	bracket := "[" + strconv.FormatFloat(raw["lower"].(float64), 'f', 2, 64) + ", " + strconv.FormatFloat(raw["upper"].(float64), 'f', 2, 64) + ") req/s"
	if !strings.Contains(text(doc), bracket) {
		t.Errorf("the page does not state the bracket %s", bracket)
	}
}

// TestHTMLScreenTable: the TP table says which candidates cannot run and
// gives the others' brackets; the verdict is on the page.
func TestHTMLScreenTable(t *testing.T) {
	t.Parallel()
	r := screenRun(t)
	doc, _ := renderPage(t, []*Run{r})
	rows := tableByID(t, doc, "tp-0")
	if len(rows) != 4 {
		t.Fatalf("%d rows, want a header and 3 candidates", len(rows))
	}
	if got := text(rows[1][2]); !strings.HasPrefix(got, "does not fit") {
		t.Errorf("1x1: %q, want does not fit", got)
	}
	if got := text(rows[2][6]); got != "[6.10, 6.40) req/s" {
		t.Errorf("2x2 bracket %q", got)
	}
	if got := text(rows[3][7]); got != "[2.33, inf) req/s" {
		t.Errorf("4x1 bracket per GPU %q", got)
	}
	if !strings.Contains(text(doc), "Verdict: "+r.Screen.Verdict()) {
		t.Error("no verdict")
	}
}

// TestHTMLRunsListed: each run appears in the header with its label, in
// its palette colour.
func TestHTMLRunsListed(t *testing.T) {
	t.Parallel()
	runs := allRuns(t)
	doc, _ := renderPage(t, runs)
	items := find(find(doc, hasClass("runs"))[0], tag("li"))
	if len(items) != len(runs) {
		t.Fatalf("%d runs listed, want %d", len(items), len(runs))
	}
	for i, li := range items {
		if !strings.Contains(text(li), runs[i].Label) {
			t.Errorf("item %d %q lacks %q", i, text(li), runs[i].Label)
		}
	}
}
