package fleet

import (
	"flag"
	"fmt"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/workload"
)

// PlanDayFlags are servesim plan's flags of the day --policies ranks a
// plan's deployments on (RankPlan).
type PlanDayFlags struct {
	policies, trace                                  string
	rate, hours, peak, trough, attainment, bandwidth float64
}

// planDayFlags names the flag behind each field of DaySpec that
// PlanDayFlags sets.
var planDayFlags = map[string]string{"rate": "day-rate", "hours": "day-hours", "peak-hour": "day-peak-hour", "trough": "day-trough",
	"trace": "day-trace", "attainment": "attainment", "storage-bandwidth": "storage-bandwidth"}

// Define puts the flags on fs and returns their names, in help order.
func (f *PlanDayFlags) Define(fs *flag.FlagSet) []string {
	fs.StringVar(&f.policies, "policies", "", "`POLICY;POLICY;...` (servesim day's: fixed:N, schedule:S=N,..., METRIC:TARGET up to --max-replicas; a bare fixed holds the plan's count): rank each on each frontier deployment by the day's dollars at --attainment (docs/day.md)")
	fs.Float64Var(&f.rate, "day-rate", 0, "with --policies: the day's mean request rate, req/s (0: the day whose busiest hour is --request-rate)")
	fs.Float64Var(&f.hours, "day-hours", 24, "with --policies: hours simulated")
	fs.Float64Var(&f.peak, "day-peak-hour", 14, "with --policies: hour of the diurnal peak")
	fs.Float64Var(&f.trough, "day-trough", 0.25, "with --policies: the day's lowest rate as a fraction of its peak, in (0, 1]")
	fs.StringVar(&f.trace, "day-trace", "", "with --policies: a trace whose arrival shape the day repeats (empty: Poisson)")
	fs.Float64Var(&f.attainment, "attainment", 0.99, "with --policies: the day's SLO attainment a ranked fleet must reach, a fraction in [0, 1]")
	fs.Float64Var(&f.bandwidth, "storage-bandwidth", DefaultStartup.StorageBandwidth, "with --policies: weight-loading bandwidth at start-up, bytes/s")
	return []string{"policies", "day-rate", "day-hours", "day-peak-hour", "day-trough", "day-trace", "attainment", "storage-bandwidth"}
}

// Day returns the day --policies ranks the plan's deployments on, its
// target-tracking policies up to maxReplicas; nil without --policies.
// given names the flags given; format is the plan's output format (the
// ranking is a table).
func (f *PlanDayFlags) Day(given map[string]bool, format string, maxReplicas int, seed uint64) (*DaySpec, error) {
	if f.policies == "" {
		for _, name := range planDayFlags {
			if given[name] {
				return nil, fmt.Errorf("--%s: ranks policies on a day: give --policies too", name)
			}
		}
		return nil, nil
	}
	if format != "table" {
		return nil, fmt.Errorf("--policies: writes a table: drop --format %s", format)
	}
	d := DaySpec{Rate: f.rate, Hours: f.hours, PeakHour: f.peak, Trough: f.trough, Attainment: f.attainment, StorageBandwidth: f.bandwidth, Seed: seed}
	var err error
	if d.Rank, err = ParsePolicies(f.policies, 1, maxReplicas); err != nil {
		return nil, fmt.Errorf("--policies %w", err)
	}
	if f.trace != "" {
		tr, err := workload.LoadTrace(f.trace)
		if err != nil {
			return nil, fmt.Errorf("--day-trace: %w", err)
		}
		d.Trace = &tr
	}
	if err := d.ValidateDay(); err != nil {
		return nil, fielderr.Rename(err, func(field string) string { return "--" + planDayFlags[field] })
	}
	return &d, nil
}
