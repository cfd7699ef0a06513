package calibrate

import (
	"fmt"
	"io"
	"strings"
)

// JointTermTable writes fit's terms as a Markdown table: each term's knob,
// group, fitted runs, prior, fitted value and move in units of its prior's
// uncertainty (±1 is the bound).
func JointTermTable(fit JointFit) string {
	var b strings.Builder
	b.WriteString("| term | of | fitted runs | prior | fitted | moved |\n|---|---|---:|---:|---:|---:|\n")
	for _, tm := range fit.Terms {
		fmt.Fprintf(&b, "| %s | %s | %d | %.4g | %.4g | %+.2f |\n", tm.Knob, tm.Group, tm.Rows, tm.Prior, tm.Value, tm.Moved())
	}
	return b.String()
}

// JointReport is `servesim calibrate --joint`: it audits points (Audit),
// leaves out the runs it flags and those it cannot model, fits the joint
// terms (FitJoint under opt) over the rest at once, and writes to w the
// counts, the term table (JointTermTable) and the median |error| of TPOT
// and TTFT at the priors and fitted, in sample. It fails when no run is
// left to fit.
func (s Simulator) JointReport(w io.Writer, points []Point, opt JointOptions) error {
	rows, skipped := s.Audit(points)
	var kept []Point
	flagged := 0
	for _, r := range rows {
		if r.Flagged {
			flagged++
			continue
		}
		kept = append(kept, r.Point)
	}
	if len(kept) == 0 {
		return invalidf("joint fit: none of the %d runs is left after the audit (%d flagged, %d cannot be modelled)", len(points), flagged, len(skipped))
	}
	fit, err := s.FitJoint(kept, opt)
	if err != nil {
		return err
	}
	metrics := opt.Metrics
	if metrics == nil {
		metrics = []Metric{TPOT, TTFT}
	}
	prior := fit
	prior.Terms = append([]JointTerm{}, fit.Terms...)
	for k := range prior.Terms {
		prior.Terms[k].Value = prior.Terms[k].Prior
	}
	fmt.Fprintf(w, "joint fit: %d runs (%d flagged by the audit and %d that cannot be modelled left out), %d simulated in the fit, loss %.4f at the priors, %.4f fitted (%d iterations)\n\n",
		len(kept), flagged, len(skipped), fit.Rows, fit.StartLoss, fit.Loss, fit.Iterations)
	io.WriteString(w, JointTermTable(fit))
	for _, f := range []struct {
		name string
		fit  JointFit
	}{{"at the priors", prior}, {"fitted", fit}} {
		rs, err := f.fit.Residuals(s, kept, metrics)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "\n%s, every run in sample:", f.name)
		for _, m := range metrics {
			v, n := MedianAbsError(rs, m)
			fmt.Fprintf(w, " %s median |error| %s (%d runs);", m, pct(v), n)
		}
	}
	fmt.Fprintln(w)
	return nil
}

// pct writes a fraction as a percentage with one decimal.
func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
