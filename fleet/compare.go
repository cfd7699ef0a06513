package fleet

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Case is one fleet to compare on the same day: a name and its pools.
type Case struct {
	Name  string
	Pools []Pool
}

// Compare runs the day of o once per case, each case's pools replacing
// o.Fleet.Pools (the start-up times and SLO are shared), and returns the
// reports in case order. Every case sees the same arrivals and lengths
// (the same seed).
func Compare(o Options, cases []Case) ([]*Report, error) {
	if len(cases) == 0 {
		return nil, invalidf("compare has no cases")
	}
	out := make([]*Report, len(cases))
	for i, c := range cases {
		oc := o
		oc.Fleet.Pools = c.Pools
		r, err := Run(oc)
		if err != nil {
			return nil, fmt.Errorf("case %s: %w", c.Name, err)
		}
		out[i] = r
	}
	return out, nil
}

// WriteComparison writes one line per case: dollars, GPU-hours (the
// start-up part), kWh, J per output token, the most replicas, the day's
// attainment and its worst hour.
func WriteComparison(w io.Writer, cases []Case, reports []*Report) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "fleet\t$\tGPU-h\tstarting GPU-h\tkWh\tJ/token\tmax replicas\tattainment %\tworst hour\tworst %\t")
	for i, r := range reports {
		t := r.Total
		wa := 0.0
		if r.Worst < len(r.Hours) {
			wa = 100 * r.Hours[r.Worst].Attainment()
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.1f\t%.2f\t%.1f\t%.3f\t%d\t%.2f\t%d\t%.2f\t\n", cases[i].Name, t.Dollars, t.GPUHours,
			t.StartupGPUHours, t.KWh(), t.JoulesPerToken(), t.MaxReplicas, 100*t.Attainment(), r.Worst, wa)
	}
	return tw.Flush()
}
