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

// JointSummary is a joint fit over a set of runs, as servesim calibrate
// --joint prints it (WriteText).
type JointSummary struct {
	// Kept runs were fitted; Flagged were left out by the audit and
	// Unmodelled because they cannot be simulated.
	Kept, Flagged, Unmodelled int
	// Fit is the joint fit.
	Fit JointFit
	// Metrics are the metrics compared; AtPriors and Fitted their median
	// |error| (a fraction) and run count, in sample, in Metrics' order.
	Metrics          []Metric
	AtPriors, Fitted []MedianErr
}

// MedianErr is a median |error| (a fraction) over Runs runs.
type MedianErr struct {
	Value float64
	Runs  int
}

// Joint audits points (Audit), leaves out the runs it flags and those it
// cannot model, fits the joint terms (FitJoint under opt) over the rest
// at once, and measures the median |error| of TPOT and TTFT (opt.Metrics
// when set) at the priors and fitted, in sample. It fails when no run is
// left to fit.
func (s Simulator) Joint(points []Point, opt JointOptions) (*JointSummary, error) {
	rows, skipped := s.Audit(points)
	var kept []Point
	j := &JointSummary{Unmodelled: len(skipped), Metrics: opt.Metrics}
	for _, r := range rows {
		if r.Flagged {
			j.Flagged++
			continue
		}
		kept = append(kept, r.Point)
	}
	if len(kept) == 0 {
		return nil, invalidf("joint fit: none of the %d runs is left after the audit (%d flagged, %d cannot be modelled)", len(points), j.Flagged, len(skipped))
	}
	j.Kept = len(kept)
	fit, err := s.FitJoint(kept, opt)
	if err != nil {
		return nil, err
	}
	j.Fit = fit
	if j.Metrics == nil {
		j.Metrics = []Metric{TPOT, TTFT}
	}
	prior := fit
	prior.Terms = append([]JointTerm{}, fit.Terms...)
	for k := range prior.Terms {
		prior.Terms[k].Value = prior.Terms[k].Prior
	}
	for _, f := range []struct {
		fit JointFit
		out *[]MedianErr
	}{{prior, &j.AtPriors}, {fit, &j.Fitted}} {
		rs, err := f.fit.Residuals(s, kept, j.Metrics)
		if err != nil {
			return nil, err
		}
		for _, m := range j.Metrics {
			v, n := MedianAbsError(rs, m)
			*f.out = append(*f.out, MedianErr{v, n})
		}
	}
	return j, nil
}

// WriteText writes the counts, the term table (JointTermTable) and the
// errors at the priors and fitted.
func (j *JointSummary) WriteText(w io.Writer) error {
	fit := j.Fit
	fmt.Fprintf(w, "joint fit: %d runs (%d flagged by the audit and %d that cannot be modelled left out), %d simulated in the fit, per-row noise %s, loss %.4f at the priors, %.4f fitted (%d iterations)\n\n",
		j.Kept, j.Flagged, j.Unmodelled, fit.Rows, pct(fit.Noise), fit.StartLoss, fit.Loss, fit.Iterations)
	io.WriteString(w, JointTermTable(fit))
	for _, f := range []struct {
		name string
		errs []MedianErr
	}{{"at the priors", j.AtPriors}, {"fitted", j.Fitted}} {
		fmt.Fprintf(w, "\n%s, every run in sample:", f.name)
		for k, m := range j.Metrics {
			fmt.Fprintf(w, " %s median |error| %s (%d runs);", m, pct(f.errs[k].Value), f.errs[k].Runs)
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

// pct writes a fraction as a percentage with one decimal.
func pct(v float64) string { return fmt.Sprintf("%.1f%%", 100*v) }
