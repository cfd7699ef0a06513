package capacity

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/sim"
)

// WriteTable writes the probes as a table — rate, PASS/FAIL, the floor
// (minimum attainment over runs), each run's attainment (* marks runs that
// stopped early) and, for failing probes, what failed — then the bracket.
// A failing row whose numbers alone would read as a pass (runs stopped
// early, whose attainment covers only the requests simulated until the
// stop; a failure other than attainment) is marked in its check column,
// and notes under the table say why.
func WriteTable(w io.Writer, c Criteria, points []Point, lower, upper float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%10s %6s %9s  %s\n", "rate", "check", "floor", "attainment per replication (* stopped early)")
	notes := map[string]bool{}
	for _, p := range points {
		verdict := "FAIL"
		if p.Pass {
			verdict = "PASS"
		}
		runs := make([]string, len(p.Runs))
		for i, v := range p.Runs {
			mark := ""
			if v.StoppedBy != sim.StopNone {
				mark = "*"
				verdict = strings.TrimSuffix(verdict, "*") + "*"
				notes["*"] = true
			}
			runs[i] = fmt.Sprintf("%.2f%%%s", 100*v.Attainment, mark)
		}
		note := failNote(c, p)
		if !p.Pass && p.MinAttainment >= c.Target && !strings.HasSuffix(verdict, "*") {
			verdict += "+"
			notes["+"] = true
		}
		for _, why := range []string{"queue growing", "failures", "client fell behind"} {
			if strings.Contains(note, why) {
				notes[why] = true
			}
		}
		fmt.Fprintf(&b, "%10.3f %6s %8.2f%%  %s%s\n", p.Rate, verdict, 100*p.MinAttainment, strings.Join(runs, " "), note)
	}
	for _, n := range []struct{ key, text string }{
		{"*", fmt.Sprintf("FAIL*: runs marked * stopped early, once more requests had missed the SLO than a passing run may miss (%.4g%% of its requests): they failed for certain. Their attainment counts only the requests simulated until the stop, so it can read above the target.", 100*(1-c.Target))},
		{"+", "FAIL+: every run met the attainment target but failed another criterion, named in parentheses."},
		{"queue growing", "queue growing: the backlog was still rising at the end of a run (unstable), so a longer run would miss the SLO whatever its attainment so far."},
		{"failures", fmt.Sprintf("failures: more than %.4g%% of a run's requests failed or were rejected.", 100*c.MaxFailureRate)},
		{"client fell behind", fmt.Sprintf("client fell behind: the send rate fell more than %.4g%% short of the arrivals (a max_concurrency cap held requests back).", 100*c.RateTolerance)},
	} {
		if notes[n.key] {
			fmt.Fprintf(&b, "  %s\n", n.text)
		}
	}
	switch {
	case lower > 0 && !math.IsInf(upper, 1):
		fmt.Fprintf(&b, "lambda* in [%.3f, %.3f) req/s: the largest rate seen to pass and the smallest seen to fail (width %.1f%%)\n",
			lower, upper, 100*(upper-lower)/lower)
	case lower == 0:
		fmt.Fprintf(&b, "lambda* < %.3f req/s: no rate probed passed\n", upper)
	default:
		fmt.Fprintf(&b, "lambda* >= %.3f req/s: no rate probed failed\n", lower)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// failNote names, briefly, what made a probe's runs fail.
func failNote(c Criteria, p Point) string {
	var why []string
	add := func(s string) {
		if !slices.Contains(why, s) {
			why = append(why, s)
		}
	}
	for _, v := range p.Runs {
		if v.StoppedBy == sim.StopSLOMisses || v.Attainment < c.Target {
			add("SLO misses")
		}
		if v.FailureRate > c.MaxFailureRate {
			add("failures")
		}
		if v.Unstable {
			add("queue growing")
		}
		if !v.Pass && len(why) == 0 {
			add("client fell behind")
		}
	}
	if len(why) == 0 {
		return ""
	}
	return "  (" + strings.Join(why, ", ") + ")"
}
