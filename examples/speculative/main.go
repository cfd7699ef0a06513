// Command speculative finds the request rate at which EAGLE-3 speculative
// decoding stops paying for Llama-3.1-8B on one H100: at light load it
// cuts TPOT by the mean acceptance length less the verify and draft
// costs; at heavy load every decoding sequence's 1 + k verify tokens and
// the k draft passes crowd other sequences out of the step. For k = 2 ...
// 5 (acceptance as vLLM measured it on MT-Bench, specdecode.DefaultTable)
// it prints mean TPOT and output throughput with and without, and the
// crossover rate (capacity.SpecCrossover).
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/report/chart"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/specdecode"
	"github.com/servesim/servesim/workload"
)

func main() {
	requests := flag.Int("n", 1500, "requests per run, 10% warm-up")
	seed := flag.Uint64("seed", 1, "seed")
	plot := flag.String("chart", "", "also write the chart of mean TPOT against rate to this .svg or .png file")
	flag.Parse()
	if err := run(os.Stdout, *requests, *seed, []int{2, 3, 4, 5}, []float64{1, 5, 10, 15, 20, 25, 30, 40}, *plot); err != nil {
		fmt.Fprintln(os.Stderr, "speculative:", err)
		os.Exit(2)
	}
}

func run(w io.Writer, requests int, seed uint64, ks []int, rates []float64, plot string) error {
	model, err := cost.Model("llama-3.1-8b")
	if err != nil {
		return err
	}
	gpu, err := cost.GPU("h100-sxm")
	if err != nil {
		return err
	}
	arm := func(sp *specdecode.Config) func(float64) (sim.Config, error) {
		return func(rate float64) (sim.Config, error) {
			c := batching.Defaults(model, gpu)
			c.MaxNumSeqs, c.MaxNumBatchedTokens = batching.ServeDefaults(gpu)
			c.Speculative = sp
			return sim.Config{
				Workload: workload.Workload{Arrivals: workload.Poisson{Rate: rate},
					Lengths: workload.Random{InputLen: 512, OutputLen: 256, RangeRatio: 0.5}},
				Server: c, Requests: requests, Warmup: requests / 10,
			}, nil
		}
	}
	fmt.Fprintln(w, "Llama-3.1-8B, one H100, Poisson arrivals, 512/256 tokens (±50%); EAGLE-3, MT-Bench acceptance")
	fmt.Fprintln(w, " k  rate  TPOT off  TPOT on  tok/s off  tok/s on  pays")
	ch := &chart.Chart{Title: "Llama-3.1-8B on one H100: EAGLE-3 against plain decoding",
		X: chart.Axis{Label: "request rate", Unit: "req/s"}, Y: chart.Axis{Label: "mean TPOT", Unit: "ms", Log: true}}
	for i, k := range ks {
		sp := &specdecode.Config{Method: specdecode.Eagle3, NumSpeculativeTokens: k, AcceptanceDataset: "mt-bench"}
		res, err := capacity.SpecCrossover{Rates: rates, Off: arm(nil), On: arm(sp), Seed: seed}.Run()
		if err != nil {
			return err
		}
		if i == 0 {
			off := chart.Line{Name: "no speculation", Style: 0, Markers: true}
			for _, r := range res.Rows {
				off.Points = append(off.Points, chart.XY{X: r.Rate, Y: 1000 * r.OffTPOT})
			}
			ch.Lines = append(ch.Lines, off)
		}
		on := chart.Line{Name: fmt.Sprintf("EAGLE-3 k=%d", k), Style: i + 1, Markers: true}
		for _, r := range res.Rows {
			on.Points = append(on.Points, chart.XY{X: r.Rate, Y: 1000 * r.OnTPOT})
		}
		ch.Lines = append(ch.Lines, on)
		for _, r := range res.Rows {
			mark := func(unstable bool) string {
				if unstable {
					return "*"
				}
				return " "
			}
			fmt.Fprintf(w, "%2d %5.0f %8.2f%s %8.2f%s %9.0f %9.0f  %v\n", k, r.Rate,
				1000*r.OffTPOT, mark(r.OffUnstable), 1000*r.OnTPOT, mark(r.OnUnstable), r.OffThroughput, r.OnThroughput, r.Pays())
		}
		switch {
		case math.IsInf(res.Crossover, 1):
			fmt.Fprintf(w, "k=%d pays at every rate tried\n", k)
		default:
			fmt.Fprintf(w, "k=%d stops paying at %.1f req/s (pays at %.0f, not at %.0f)\n", k, res.Crossover, res.Lo, res.Hi)
		}
	}
	fmt.Fprintln(w, "TPOT in ms (mean); * marks an unstable run (the queue grows)")
	if plot != "" {
		return chart.WriteFile(plot, ch)
	}
	return nil
}
