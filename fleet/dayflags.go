package fleet

import (
	"flag"
	"fmt"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
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
	if d.Trace, err = traceFlag(f.trace, "day-trace"); err != nil {
		return nil, err
	}
	if err := d.ValidateDay(); err != nil {
		return nil, fielderr.Rename(err, func(field string) string { return "--" + planDayFlags[field] })
	}
	return &d, nil
}

// DayFlags are servesim day's flags of the day and fleet it simulates.
type DayFlags struct {
	model, gpus, policy, trace, prices, rank                     string
	tp, min, max                                                 int
	rate, hours, peak, trough, ttft, tpot, bandwidth, attainment float64
	seed                                                         uint64
	// vLLM's KV offloading flags, as bench's (cliflag.DefineKVOffload).
	offloadSize, pcieBandwidth float64
	offloadBackend             string
}

// Define puts the flags on fs and returns their names, in help order.
func (f *DayFlags) Define(fs *flag.FlagSet) []string {
	fs.StringVar(&f.model, "model", "llama-3.1-8b", "model (cost catalog name)")
	fs.StringVar(&f.gpus, "gpu", "h100-sxm", "comma-separated GPUs, one pool each (cost catalog names)")
	fs.IntVar(&f.tp, "tensor-parallel-size", 1, "GPUs per replica")
	fs.StringVar(&f.policy, "policy", "running:24", "fixed:N, schedule:S=N,..., or METRIC:TARGET")
	fs.IntVar(&f.min, "min", 1, "fewest replicas per pool (METRIC policies)")
	fs.IntVar(&f.max, "max", 8, "most replicas per pool (METRIC policies)")
	fs.Float64Var(&f.rate, "rate", 4, "mean request rate over the day, req/s")
	fs.Float64Var(&f.hours, "hours", 24, "hours simulated")
	fs.Float64Var(&f.peak, "peak-hour", 14, "hour of the diurnal peak")
	fs.Float64Var(&f.trough, "trough", 0.25, "the lowest rate as a fraction of the peak, in (0, 1]")
	fs.StringVar(&f.trace, "trace", "", "a trace whose arrival shape and lengths the day repeats (empty: Poisson, Azure conversation lengths)")
	fs.Float64Var(&f.ttft, "ttft", 2, "SLO on TTFT, seconds (0: none)")
	fs.Float64Var(&f.tpot, "tpot", 0.1, "SLO on TPOT, seconds (0: none)")
	fs.StringVar(&f.prices, "prices", "", "gpu=dollars-per-GPU-hour,... overriding "+plan.PriceSource)
	fs.Float64Var(&f.bandwidth, "storage-bandwidth", DefaultStartup.StorageBandwidth, "weight-loading bandwidth at start-up, bytes/s")
	fs.Uint64Var(&f.seed, "seed", 1, "seed")
	fs.StringVar(&f.rank, "rank", "", "policies separated by ';': rank each on each --gpu by the day's cost at --attainment")
	fs.Float64Var(&f.attainment, "attainment", 0.99, "the day's SLO attainment a ranked fleet must reach, a fraction in [0, 1]")
	off := cliflag.DefineKVOffload(fs, &f.offloadSize, &f.offloadBackend, &f.pcieBandwidth)
	return append([]string{"model", "gpu", "tensor-parallel-size", "policy", "min", "max", "rate", "hours", "peak-hour", "trough", "trace",
		"ttft", "tpot", "prices", "storage-bandwidth", "seed", "rank", "attainment"}, off...)
}

// Spec returns the day the flags name, checked; its errors name the flag.
func (f *DayFlags) Spec() (DaySpec, error) {
	d := DaySpec{TP: f.tp, Rate: f.rate, Hours: f.hours, PeakHour: f.peak, Trough: f.trough, SLO: metrics.SLO{TTFT: f.ttft, TPOT: f.tpot},
		StorageBandwidth: f.bandwidth, Attainment: f.attainment, Seed: f.seed, Prices: plan.Prices{}}
	var err error
	if d.Policy, err = ParsePolicy(f.policy, f.min, f.max); err != nil {
		return d, fmt.Errorf("--policy: %w", err)
	}
	if f.rank != "" {
		if d.Rank, err = ParsePolicies(f.rank, f.min, f.max); err != nil {
			return d, fmt.Errorf("--rank %w", err)
		}
	}
	if d.Model, err = cost.Model(f.model); err != nil {
		return d, fmt.Errorf("--model: %w", err)
	}
	if f.prices != "" {
		if d.Prices, err = plan.ParsePrices(f.prices); err != nil {
			return d, fmt.Errorf("--prices: %w", err)
		}
	}
	for _, g := range strings.Split(f.gpus, ",") {
		gpu, err := cost.GPU(strings.TrimSpace(g))
		if err != nil {
			return d, fmt.Errorf("--gpu: %w", err)
		}
		d.GPUs = append(d.GPUs, gpu)
	}
	if d.Trace, err = traceFlag(f.trace, "trace"); err != nil {
		return d, err
	}
	if d.KVOffload, err = batching.NewKVOffload(f.offloadSize, f.offloadBackend, f.pcieBandwidth); err != nil {
		return d, fielderr.Rename(err, func(f string) string { return "--" + offloadField(f) })
	}
	if err := d.Validate(); err != nil {
		return d, fielderr.Rename(err, func(f string) string { return "--" + f })
	}
	return d, nil
}

// Title names the day as servesim day heads its table: the model, the
// hours and the mean rate; with the GPUs and the policy as given unless
// the day ranks policies.
func (f *DayFlags) Title(d DaySpec) string {
	if len(d.Rank) > 0 {
		return fmt.Sprintf("%s, %.4g h at %.2f req/s mean", d.Model.Name, f.hours, f.rate)
	}
	return fmt.Sprintf("%s on %s, policy %s, %.4g h at %.2f req/s mean", d.Model.Name, f.gpus, f.policy, f.hours, f.rate)
}

// traceFlag loads the trace at path, the value of flag --name (nil for
// no path).
func traceFlag(path, name string) (*workload.Trace, error) {
	if path == "" {
		return nil, nil
	}
	tr, err := workload.LoadTrace(path)
	if err != nil {
		return nil, fmt.Errorf("--%s: %w", name, err)
	}
	return &tr, nil
}
