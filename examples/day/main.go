// Command day simulates one day of conversation traffic for Llama-3.1-8B
// and prints its bill on two GPU types (H100 SXM and A100 80 GB), each
// under a fixed fleet sized for the peak and two autoscaling policies
// (the Kubernetes HPA rule on vLLM's running requests, and on its
// waiting requests): dollars, GPU-hours, kWh, J per output token,
// attainment and the worst hour. The arrivals keep the burstiness of the
// Azure LLM inference conversation trace (../shared/data), repeated over
// 24 hours and time-changed to a diurnal curve (peak at 14:00, trough a
// quarter of the peak); the lengths are the trace's own rows.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fleet"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func main() {
	rate := flag.Float64("rate", 8, "mean request rate over the day, req/s")
	hours := flag.Float64("hours", 24, "hours simulated")
	plot := flag.String("plot", "", "write the chart of the first autoscaled H100 day to this .png or .svg")
	flag.Parse()
	if err := run(os.Stdout, *rate, *hours, *plot); err != nil {
		fmt.Fprintln(os.Stderr, "day:", err)
		os.Exit(2)
	}
}

func run(w io.Writer, rate, hours float64, plot string) error {
	dir, ok := shareddata.Find()
	if !ok {
		return fmt.Errorf("the shared data directory (with AzureLLMInferenceTrace_conv.csv) is not above the working directory")
	}
	tr, err := workload.LoadTrace(dir + "/AzureLLMInferenceTrace_conv.csv")
	if err != nil {
		return err
	}
	day := fleet.Day{Span: hours * 3600, Bucket: 3600, Rates: fleet.Scaled(rate, fleet.Sinusoid(24, 14, 0.25)), Trace: &tr}
	model, err := cost.Model("llama-3.1-8b")
	if err != nil {
		return err
	}
	var cases []fleet.Case
	for _, g := range []struct {
		gpu        string
		peak       int     // replicas a fixed fleet needs at the peak
		running    float64 // HPA target: running requests per replica
		waiting    float64 // HPA target: waiting requests per replica
		maxReplica int
	}{{"h100-sxm", 2, 24, 2, 4}, {"a100-80gb", 3, 16, 2, 6}} {
		gpu, err := cost.GPU(g.gpu)
		if err != nil {
			return err
		}
		eng := batching.Defaults(model, gpu)
		for _, pc := range []struct {
			name string
			pol  fleet.Policy
		}{
			{"fixed", fleet.Policy{Kind: fleet.Fixed, Replicas: g.peak}},
			{"hpa-running", fleet.Target(fleet.Running, g.running, 1, g.maxReplica)},
			{"hpa-waiting", fleet.Target(fleet.Waiting, g.waiting, 1, g.maxReplica)},
		} {
			p, err := fleet.NewPool(g.gpu, eng, pc.pol)
			if err != nil {
				return err
			}
			cases = append(cases, fleet.Case{Name: g.gpu + " " + pc.name, Pools: []fleet.Pool{p}})
		}
	}
	o := fleet.Options{Day: day, Seed: 1, Tail: fleet.DefaultTail,
		Fleet: fleet.Fleet{Startup: fleet.DefaultStartup, SLO: metrics.SLO{TTFT: 2, TPOT: 0.1}}}
	reps, err := fleet.Compare(o, cases)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%.0f h of Azure-conversation traffic at %.1f req/s mean (%.0f requests), llama-3.1-8b, SLO TTFT 2 s + TPOT 100 ms\n",
		hours, rate, float64(reps[0].Total.Requests))
	fmt.Fprintf(w, "prices: %s; power: %s; start-up: %s\n\n", "modal.com on-demand, May 2026", fleet.PowerSource, fleet.DefaultStartup)
	if err := fleet.WriteComparison(w, cases, reps); err != nil {
		return err
	}
	order, met := fleet.Rank(reps, 0.999)
	fmt.Fprintf(w, "\nat >= 99.9%% attainment over the day, cheapest first:")
	for _, i := range order[:met] {
		fmt.Fprintf(w, " %s ($%.2f)", cases[i].Name, reps[i].Total.Dollars)
	}
	fmt.Fprintln(w)
	if plot != "" {
		return chart.WriteFile(plot, reps[1].Charts(cases[1].Name)...)
	}
	return nil
}
