package fleet

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/servesim/servesim/jobs"
)

// Case is one fleet to compare on the same day: a name and its pools.
type Case struct {
	Name  string
	Pools []Pool
}

// Compare runs the day of o once per case, each case's pools replacing
// o.Fleet.Pools (the start-up times and SLO are shared), and returns the
// reports in case order. Every case sees the same arrivals and lengths
// (the same seed). The cases run in parallel on jobs.Each's workers
// (GOMAXPROCS of them); each is a function of its case alone, so the
// reports do not depend on the parallelism.
func Compare(o Options, cases []Case) ([]*Report, error) {
	if len(cases) == 0 {
		return nil, invalidf("compare has no cases")
	}
	out := make([]*Report, len(cases))
	err := jobs.Each(len(cases), jobs.All, 0, func(k, i int) error {
		oc := o
		oc.Fleet.Pools = cases[i].Pools
		r, err := Run(oc)
		if err != nil {
			return fmt.Errorf("case %s: %w", cases[i].Name, err)
		}
		out[k] = r
		return nil
	})
	if err != nil {
		return nil, err
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

// Rank orders the cases by the day's dollars among those whose day-long
// attainment is at least target (a fraction), cheapest first (ties keep
// case order); the cases that miss it follow, by attainment, best first.
// It returns case indices and how many met the target.
func Rank(reports []*Report, target float64) (order []int, met int) {
	var ok, miss []int
	for i, r := range reports {
		if r.Total.Attainment() >= target {
			ok = append(ok, i)
		} else {
			miss = append(miss, i)
		}
	}
	slices.SortStableFunc(ok, func(a, b int) int { return cmp.Compare(reports[a].Total.Dollars, reports[b].Total.Dollars) })
	slices.SortStableFunc(miss, func(a, b int) int {
		return cmp.Compare(reports[b].Total.Attainment(), reports[a].Total.Attainment())
	})
	return append(ok, miss...), len(ok)
}
