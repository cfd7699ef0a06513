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
	"os"
	"time"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim/metrics"
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
		Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.2}, 0.99),
		Seed:     seed, Replications: 3, BoundaryReplications: 5,
		Start: 2, Precision: 0.05, CommonRate: 4,
	}
	start := time.Now()
	rep, err := study.Run()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "llama-3.1-70b on h100-sxm, Azure-conversation lengths, Poisson arrivals\n")
	fmt.Fprintf(w, "SLO: TTFT <= 2 s and TPOT <= 200 ms for >= 99%% of requests; paired seeds across candidates\n\n")
	if err := rep.WriteTable(w, study.CommonRate); err != nil {
		return err
	}
	var runs int
	var reqs int64
	for _, r := range rep.Rows {
		if r.Search != nil {
			runs += r.Search.Runs
			reqs += r.Search.Requests
		}
	}
	fmt.Fprintf(w, "searches: %d runs, %d simulated requests, %.1f s\n", runs, reqs, time.Since(start).Seconds())
	return nil
}
