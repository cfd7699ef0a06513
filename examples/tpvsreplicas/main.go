// Command tpvsreplicas asks the platform engineer's question for
// Llama-3.1-70B on H100s: on the same cards, is one TP=4 replica better
// than two TP=2 replicas (or one TP=8)? Each candidate gets the cost
// model's shape and memory checks, then a capacity search under one
// arrival process and SLO (MLPerf's Llama-2-70B server limits: TTFT ≤ 2 s,
// TPOT ≤ 200 ms, for 99% of requests; Azure-conversation lengths), and the
// candidates are compared per GPU: λ* per card, and per-card goodput at a
// common rate.
package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

func main() {
	requests := flag.Int("n", 3000, "requests per run, warm-up included")
	seed := flag.Uint64("seed", 1, "base seed")
	flag.Parse()
	if err := run(os.Stdout, *requests, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "tpvsreplicas:", err)
		os.Exit(2)
	}
}

func run(w io.Writer, requests int, seed uint64) error {
	model, err := cost.Model("llama-3.1-70b")
	if err != nil {
		return err
	}
	gpu, err := cost.GPU("h100-sxm")
	if err != nil {
		return err
	}
	study := screen.Study{
		Engine: batching.Defaults(model, gpu),
		Router: batching.LeastOutstanding,
		Candidates: []screen.Candidate{
			{TP: 1, Replicas: 4}, {TP: 2, Replicas: 2}, {TP: 4, Replicas: 1}, {TP: 8, Replicas: 1},
		},
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.AzureConversation()},
		Requests: requests, Warmup: requests / 10,
		Criteria: capacity.DefaultCriteria(sim.SLO{TTFT: 2, TPOT: 0.2}, 0.99),
		Seed:     seed, Replications: 3, BoundaryReplications: 5,
		Start: 2, Precision: 0.05, CommonRate: 4,
	}
	start := time.Now()
	rep, err := study.Run()
	if err != nil {
		return err
	}
	rows := rep.Rows
	fmt.Fprintf(w, "llama-3.1-70b on h100-sxm, Azure-conversation lengths, Poisson arrivals\n")
	fmt.Fprintf(w, "SLO: TTFT <= 2 s and TPOT <= 200 ms for >= 99%% of requests; paired seeds across candidates\n\n")
	fmt.Fprintf(w, "%-10s %4s  %-40s %12s  %-18s %-16s %s\n", "candidate", "GPUs", "shape and memory per rank", "KV tokens", "lambda* (req/s)", "lambda*/GPU", "at 4 req/s: floor, G_card")
	for _, r := range rows {
		switch {
		case r.ShapeErr != "":
			fmt.Fprintf(w, "%-10s %4d  impossible: %s\n", r.Candidate, r.GPUs, r.ShapeErr)
			continue
		case !r.Fits && r.Memory.KVPoolBytes <= 0:
			fmt.Fprintf(w, "%-10s %4d  does not fit: weights %.1f GiB + runtime %.1f GiB > usable %.1f GiB\n",
				r.Candidate, r.GPUs, r.Memory.WeightBytes/cost.GiB, r.Memory.RuntimeBytes/cost.GiB, r.Memory.UsableBytes/cost.GiB)
			continue
		case !r.Fits:
			fmt.Fprintf(w, "%-10s %4d  cannot run: %s\n", r.Candidate, r.GPUs, r.FitErr)
			continue
		}
		shape := fmt.Sprintf("%d heads, %d kv; weights %.1f + KV %.1f GiB",
			r.Shape.HeadsPerRank, r.Shape.KVHeadsPerRank, r.Memory.WeightBytes/cost.GiB, r.Memory.KVPoolBytes/cost.GiB)
		fmt.Fprintf(w, "%-10s %4d  %-40s %12d  [%6.2f, %6s) [%5.2f, %6s) %6.2f%%, %5.0f tok/s/GPU\n",
			r.Candidate, r.GPUs, shape, r.Memory.KVTokens,
			r.Search.Lower, upper(r.Search.Upper), r.LowerPerGPU, upper(r.UpperPerGPU),
			100*r.CommonAttainment, r.CommonGoodputPerGPU)
	}
	fmt.Fprintf(w, "\nverdict: %s\n", rep.Verdict())
	var runs int
	var reqs int64
	for _, r := range rows {
		if r.Search != nil {
			runs += r.Search.Runs
			reqs += r.Search.Requests
		}
	}
	fmt.Fprintf(w, "searches: %d runs, %d simulated requests, %.1f s\n", runs, reqs, time.Since(start).Seconds())
	return nil
}

func upper(x float64) string {
	if math.IsInf(x, 1) {
		return "inf"
	}
	return fmt.Sprintf("%.2f", x)
}
