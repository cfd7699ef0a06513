package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
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
	if !(*rate > 0) || *rate > 1e7 {
		return fmt.Errorf("day: --rate %v must be a number of requests/s in (0, 1e7]", *rate)
	}
	if !(*trough > 0 && *trough <= 1) {
		return fmt.Errorf("day: --trough %v must be in (0, 1]", *trough)
	}
	if !(*hours > 0 && *hours <= 24*7) {
		return fmt.Errorf("day: --hours %v must be in (0, 168]", *hours)
	}
	if !(*target >= 0 && *target <= 1) {
		return fmt.Errorf("day: --attainment %v must be a fraction in [0, 1] (0.99 for 99%%)", *target)
	}
	pol, err := fleet.ParsePolicy(*policy, *minR, *maxR)
	if err != nil {
		return fmt.Errorf("day: --policy: %w", err)
	}
	var ranked []fleet.Policy
	var rankNames []string
	if *rank != "" {
		for _, f := range strings.Split(*rank, ";") {
			f = strings.TrimSpace(f)
			p, err := fleet.ParsePolicy(f, *minR, *maxR)
			if err != nil {
				return fmt.Errorf("day: --rank %q: %w", f, err)
			}
			ranked, rankNames = append(ranked, p), append(rankNames, f)
		}
	}
	model, err := cost.Model(*modelName)
	if err != nil {
		return fmt.Errorf("day: --model: %w", err)
	}
	over := plan.Prices{}
	if *prices != "" {
		if over, err = plan.ParsePrices(*prices); err != nil {
			return fmt.Errorf("day: --prices: %w", err)
		}
	}
	var pools []fleet.Pool
	var cases []fleet.Case
	for _, g := range strings.Split(*gpus, ",") {
		gpu, err := cost.GPU(strings.TrimSpace(g))
		if err != nil {
			return fmt.Errorf("day: --gpu: %w", err)
		}
		eng := batching.Defaults(model, gpu)
		eng.Deployment.TP = *tp
		price, ok := over[gpu.Name]
		if !ok {
			if price, err = fleet.DefaultPrice(gpu.Name); err != nil {
				return fmt.Errorf("day: %w (or pass --prices %s=DOLLARS)", err, gpu.Name)
			}
		}
		pw, err := fleet.DefaultPower(gpu.Name)
		if err != nil {
			return fmt.Errorf("day: %w", err)
		}
		pools = append(pools, fleet.Pool{Name: gpu.Name, Engine: eng, Policy: pol, Price: price, Power: pw})
		for i, rp := range ranked {
			cases = append(cases, fleet.Case{Name: gpu.Name + " " + rankNames[i],
				Pools: []fleet.Pool{{Name: gpu.Name, Engine: eng, Policy: rp, Price: price, Power: pw}}})
		}
	}
	day := fleet.Day{Span: *hours * 3600, Bucket: 3600, Rates: fleet.Scaled(*rate, fleet.Sinusoid(24, *peak, *trough))}
	for float64(len(day.Rates))*day.Bucket < day.Span {
		day.Rates = append(day.Rates, day.Rates[:24]...)
	}
	if *trace != "" {
		tr, err := workload.LoadTrace(*trace)
		if err != nil {
			return fmt.Errorf("day: --trace: %w", err)
		}
		day.Trace = &tr
	} else {
		day.Phases = []fleet.Phase{{From: 0, Lengths: workload.AzureConversation()}}
	}
	st := fleet.DefaultStartup
	st.StorageBandwidth = *bandwidth
	opts := fleet.Options{Day: day, Seed: *seed, Tail: fleet.DefaultTail,
		Fleet: fleet.Fleet{Pools: pools, Startup: st, SLO: metrics.SLO{TTFT: *ttft, TPOT: *tpot}}}
	if len(cases) > 0 {
		return rankDay(e, opts, cases, *target, fmt.Sprintf("%s, %.4g h at %.2f req/s mean", model.Name, *hours, *rate))
	}
	rep, err := fleet.Run(opts)
	if err != nil {
		return fmt.Errorf("day: %w", err)
	}
	fmt.Fprintf(e.stdout, "%s on %s, policy %s, %.4g h at %.2f req/s mean (%d requests)\n", model.Name, *gpus, *policy, *hours, *rate, rep.Total.Requests)
	if err := rep.WriteHours(e.stdout); err != nil {
		return err
	}
	if *events {
		for _, ev := range rep.Events {
			fmt.Fprintf(e.stdout, "%9.1f s  %s/%d %-6s -> %d: %s\n", ev.Time, ev.Pool, ev.Replica, ev.Kind, ev.Replicas, ev.Reason)
		}
	}
	if *plotPath != "" {
		if err := chart.WriteFile(*plotPath, rep.Charts(model.Name)...); err != nil {
			return fmt.Errorf("day: --plot: %w", err)
		}
	}
	return nil
}

// rankDay runs every case on the day of o and prints them ranked by the
// day's dollars at attainment target (fleet.Rank), then the cheapest that
// meets it.
func rankDay(e *env, o fleet.Options, cases []fleet.Case, target float64, what string) error {
	reports, err := fleet.Compare(o, cases)
	if err != nil {
		return fmt.Errorf("day: %w", err)
	}
	order, met := fleet.Rank(reports, target)
	rc, rr := make([]fleet.Case, len(order)), make([]*fleet.Report, len(order))
	for i, k := range order {
		rc[i], rr[i] = cases[k], reports[k]
	}
	fmt.Fprintf(e.stdout, "%s (%d requests): %d fleets ranked by the day's dollars at >= %.4g%% attainment\n", what, rr[0].Total.Requests, len(cases), 100*target)
	if err := fleet.WriteComparison(e.stdout, rc, rr); err != nil {
		return err
	}
	if met == 0 {
		fmt.Fprintf(e.stdout, "none reaches %.4g%% attainment: the best is %s at %.2f%%\n", 100*target, rc[0].Name, 100*rr[0].Total.Attainment())
		return nil
	}
	fmt.Fprintf(e.stdout, "cheapest at >= %.4g%% attainment: %s, $%.2f (%d of %d fleets reach it)\n", 100*target, rc[0].Name, rr[0].Total.Dollars, met, len(cases))
	return nil
}
