package main

import (
	"flag"
	"fmt"

	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/report/chart"
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
--kv-offloading-size gives every replica a host buffer for KV blocks
(vLLM's native OffloadingConnector), and the summary its counters.

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
	var f fleet.DayFlags
	f.Define(fs)
	events := fs.Bool("events", false, "also list every scaling event with its reason")
	plotPath := fs.String("plot", "", "write the chart of the day (.png or .svg)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("day: unexpected argument %q (day takes only flags; see servesim day -h)", fs.Arg(0))
	}
	d, err := f.Spec()
	if err != nil {
		return fmt.Errorf("day: %w", err)
	}
	opts, cases, err := d.Options()
	if err != nil {
		return fmt.Errorf("day: %w", err)
	}
	if len(cases) > 0 {
		if err := fleet.WriteRanked(e.stdout, opts, cases, d.Attainment, f.Title(d)); err != nil {
			return fmt.Errorf("day: %w", err)
		}
		return nil
	}
	rep, err := fleet.Run(opts)
	if err != nil {
		return fmt.Errorf("day: %w", err)
	}
	fmt.Fprintf(e.stdout, "%s (%d requests)\n", f.Title(d), rep.Total.Requests)
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
