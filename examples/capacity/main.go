// Command capacity finds λ*, the largest Poisson request rate one
// vLLM-style replica of Llama-3.1-8B on an H100 sustains while 99% of
// requests meet MLPerf's server limits for that model (TTFT ≤ 2 s and
// TPOT ≤ 100 ms, jointly), with Azure-conversation request lengths (the
// built-in joint quantile table of the public trace). It prints the
// bracket — the largest rate seen to pass and the smallest seen to fail —
// and every probe with each replication's attainment.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func main() {
	var (
		requests = flag.Int("n", 4000, "requests per run, warm-up included")
		reps     = flag.Int("runs", 3, "replications per coarse probe")
		boundary = flag.Int("boundary-runs", 5, "replications per probe near the answer")
		prec     = flag.Float64("precision", 0.05, "relative width of the final bracket")
		seed     = flag.Uint64("seed", 1, "base seed")
	)
	flag.Parse()
	if err := run(os.Stdout, *requests, *reps, *boundary, *prec, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "capacity:", err)
		os.Exit(2)
	}
}

func run(w io.Writer, requests, reps, boundary int, precision float64, seed uint64) error {
	model, err := cost.Model("llama-3.1-8b")
	if err != nil {
		return err
	}
	gpu, err := cost.GPU("h100-sxm")
	if err != nil {
		return err
	}
	slo := metrics.SLO{TTFT: 2, TPOT: 0.100}
	s := capacity.Search{
		Base: sim.Config{
			Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.AzureConversation()},
			Server:   batching.Defaults(model, gpu),
			Requests: requests, Warmup: requests / 10,
		},
		Criteria:     capacity.DefaultCriteria(slo, 0.99),
		Seed:         seed,
		Replications: reps, BoundaryReplications: boundary,
		Start: 4, Precision: precision,
	}
	start := time.Now()
	res, err := s.Run()
	if err != nil {
		return err
	}
	elapsed := time.Since(start)

	fmt.Fprintf(w, "llama-3.1-8b on h100-sxm (TP 1, vLLM defaults), Azure-conversation lengths, Poisson arrivals\n")
	fmt.Fprintf(w, "SLO: TTFT <= 2 s and TPOT <= 100 ms for >= 99%% of requests; %d requests per run (%d warm-up)\n\n", requests, requests/10)
	if err := capacity.WriteTable(w, s.Criteria, res.Points, res.Lower, res.Upper); err != nil {
		return err
	}
	fmt.Fprintf(w, "search: %d runs, %d simulated requests, %.1f s\n", res.Runs, res.Requests, elapsed.Seconds())
	return nil
}
