package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

const dayUsage = `Usage: servesim day [flags]

Simulates a day (or --hours) of traffic on a fleet of --model replicas,
one pool per --gpu, each sized by --policy, and prints the bill hour by
hour: rate, mean replicas billed, p99 TTFT and TPOT, attainment, goodput,
dollars, kWh and joules per output token; then the day's totals and its
worst hour, and every scaling event with --events. The rate follows a
diurnal sine (--rate mean, --peak-hour, --trough as a fraction of the
peak); the arrivals keep the shape of --trace (a CSV or JSONL trace,
repeated; its lengths too), or are Poisson with the Azure conversation
lengths. Runs in summary mode: memory follows the requests in flight.

Policies: fixed:N; schedule:SECONDS=N,...; or METRIC:TARGET, the
Kubernetes HPA rule on one of vLLM's metrics (running, waiting,
in-flight, kv-usage, queue-time) with a 15 s period, 10% tolerance and
300 s scale-down window, between --min and --max replicas.

With --rank "POLICY;POLICY;...", every policy on every --gpu is a fleet
of its own, all on the same day (the same arrivals), and the table ranks
them by the day's dollars among those whose attainment reaches
--attainment, cheapest first; those that miss it follow, best first.
`

// runDay is `servesim day`.
func runDay(args []string, e *env) error {
	fs := flag.NewFlagSet("day", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprint(e.stderr, dayUsage, "\nFlags:\n"); fs.PrintDefaults() }
	var (
		modelName = fs.String("model", "llama-3.1-8b", "model (cost catalog name)")
		gpus      = fs.String("gpu", "h100-sxm", "comma-separated GPUs, one pool each (cost catalog names)")
		tp        = fs.Int("tensor-parallel-size", 1, "GPUs per replica")
		policy    = fs.String("policy", "running:24", "fixed:N, schedule:S=N,..., or METRIC:TARGET")
		minR      = fs.Int("min", 1, "fewest replicas per pool (METRIC policies)")
		maxR      = fs.Int("max", 8, "most replicas per pool (METRIC policies)")
		rate      = fs.Float64("rate", 4, "mean request rate over the day, req/s")
		hours     = fs.Float64("hours", 24, "hours simulated")
		peak      = fs.Float64("peak-hour", 14, "hour of the diurnal peak")
		trough    = fs.Float64("trough", 0.25, "the lowest rate as a fraction of the peak, in (0, 1]")
		trace     = fs.String("trace", "", "a trace whose arrival shape and lengths the day repeats (empty: Poisson, Azure conversation lengths)")
		ttft      = fs.Float64("ttft", 2, "SLO on TTFT, seconds (0: none)")
		tpot      = fs.Float64("tpot", 0.1, "SLO on TPOT, seconds (0: none)")
		prices    = fs.String("prices", "", "gpu=dollars-per-GPU-hour,... overriding "+plan.PriceSource)
		bandwidth = fs.Float64("storage-bandwidth", fleet.DefaultStartup.StorageBandwidth, "weight-loading bandwidth at start-up, bytes/s")
		seed      = fs.Uint64("seed", 1, "seed")
		events    = fs.Bool("events", false, "also list every scaling event with its reason")
		plotPath  = fs.String("plot", "", "write the chart of the day (.png or .svg)")
		rank      = fs.String("rank", "", "policies separated by ';': rank each on each --gpu by the day's cost at --attainment")
		target    = fs.Float64("attainment", 0.99, "the day's SLO attainment a ranked fleet must reach, a fraction in [0, 1]")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("day: unexpected argument %q (day takes only flags; see servesim day -h)", fs.Arg(0))
	}
	d := fleet.DaySpec{TP: *tp, Rate: *rate, Hours: *hours, PeakHour: *peak, Trough: *trough, SLO: metrics.SLO{TTFT: *ttft, TPOT: *tpot},
		StorageBandwidth: *bandwidth, Attainment: *target, Seed: *seed, Prices: plan.Prices{}}
	var err error
	if d.Policy, err = fleet.ParsePolicy(*policy, *minR, *maxR); err != nil {
		return fmt.Errorf("day: --policy: %w", err)
	}
	if *rank != "" {
		if d.Rank, err = fleet.ParsePolicies(*rank, *minR, *maxR); err != nil {
			return fmt.Errorf("day: --rank %w", err)
		}
	}
	if d.Model, err = cost.Model(*modelName); err != nil {
		return fmt.Errorf("day: --model: %w", err)
	}
	if *prices != "" {
		if d.Prices, err = plan.ParsePrices(*prices); err != nil {
			return fmt.Errorf("day: --prices: %w", err)
		}
	}
	for _, g := range strings.Split(*gpus, ",") {
		gpu, err := cost.GPU(strings.TrimSpace(g))
		if err != nil {
			return fmt.Errorf("day: --gpu: %w", err)
		}
		d.GPUs = append(d.GPUs, gpu)
	}
	if *trace != "" {
		tr, err := workload.LoadTrace(*trace)
		if err != nil {
			return fmt.Errorf("day: --trace: %w", err)
		}
		d.Trace = &tr
	}
	if err := d.Validate(); err != nil {
		return fmt.Errorf("day: %w", fielderr.Rename(err, func(f string) string { return "--" + f }))
	}
	opts, cases, err := d.Options()
	if err != nil {
		return fmt.Errorf("day: %w", err)
	}
	if len(cases) > 0 {
		if err := fleet.WriteRanked(e.stdout, opts, cases, *target, fmt.Sprintf("%s, %.4g h at %.2f req/s mean", d.Model.Name, *hours, *rate)); err != nil {
			return fmt.Errorf("day: %w", err)
		}
		return nil
	}
	rep, err := fleet.Run(opts)
	if err != nil {
		return fmt.Errorf("day: %w", err)
	}
	fmt.Fprintf(e.stdout, "%s on %s, policy %s, %.4g h at %.2f req/s mean (%d requests)\n", d.Model.Name, *gpus, *policy, *hours, *rate, rep.Total.Requests)
	if err := rep.WriteHours(e.stdout); err != nil {
		return err
	}
	if *events {
		for _, ev := range rep.Events {
			fmt.Fprintf(e.stdout, "%9.1f s  %s/%d %-6s -> %d: %s\n", ev.Time, ev.Pool, ev.Replica, ev.Kind, ev.Replicas, ev.Reason)
		}
	}
	if *plotPath != "" {
		if err := chart.WriteFile(*plotPath, rep.Charts(d.Model.Name)...); err != nil {
			return fmt.Errorf("day: --plot: %w", err)
		}
	}
	return nil
}
