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
func WriteTable(w io.Writer, c Criteria, points []Point, lower, upper float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%10s %6s %9s  %s\n", "rate", "check", "floor", "attainment per replication (* stopped early)")
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
			}
			runs[i] = fmt.Sprintf("%.2f%%%s", 100*v.Attainment, mark)
		}
		fmt.Fprintf(&b, "%10.3f %6s %8.2f%%  %s%s\n", p.Rate, verdict, 100*p.MinAttainment, strings.Join(runs, " "), failNote(c, p))
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
