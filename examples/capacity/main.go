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
	"math"
	"os"
	"strings"
	"time"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
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
	slo := sim.SLO{TTFT: 2, TPOT: 0.100}
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
	fmt.Fprintf(w, "%8s %6s %9s  %s\n", "rate", "check", "floor", "attainment per replication")
	for _, p := range res.Points {
		verdict := "FAIL"
		if p.Pass {
			verdict = "PASS"
		}
		var runs []string
		for _, v := range p.Runs {
			mark := ""
			if v.StoppedBy != "" {
				mark = "*"
			}
			runs = append(runs, fmt.Sprintf("%.2f%%%s", 100*v.Attainment, mark))
		}
		fmt.Fprintf(w, "%8.2f %6s %8.2f%%  %s\n", p.Rate, verdict, 100*p.MinAttainment, strings.Join(runs, " "))
	}
	fmt.Fprintf(w, "(* stopped early: more than 1%% of its requests had already missed)\n\n")
	if res.Bracketed() {
		fmt.Fprintf(w, "capacity bracket: lambda* in [%.2f, %.2f) req/s (width %.1f%%)\n", res.Lower, res.Upper, 100*(res.Upper-res.Lower)/res.Lower)
	} else {
		fmt.Fprintf(w, "capacity bracket: [%v, %v) req/s: not bracketed within the search limits\n", res.Lower, fmtInf(res.Upper))
	}
	fmt.Fprintf(w, "search: %d runs, %d simulated requests, %.1f s\n", res.Runs, res.Requests, elapsed.Seconds())
	return nil
}

func fmtInf(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprint(x)
}
