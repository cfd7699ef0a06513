package screen_test

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/screen"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// Screening tensor parallelism for Llama-3.1-8B on two H100s: two TP=1
// replicas behind a round-robin router against one TP=2 replica. Each
// candidate passes the cost model's shape and memory checks, then gets a
// capacity search under one arrival process and SLO. The search here is
// coarse — doubling from 4 req/s and stopping at the first factor-of-2
// bracket (precision 1), one replication of 600 requests — so it runs in a
// moment; the brackets are a factor of 2 wide (here they do not overlap).
func Example() {
	model, err := cost.Model("llama-3.1-8b")
	if err != nil {
		fmt.Println(err)
		return
	}
	gpu, err := cost.GPU("h100-sxm")
	if err != nil {
		fmt.Println(err)
		return
	}
	study := screen.Study{
		Engine:     batching.Defaults(model, gpu),
		Router:     batching.RoundRobin,
		Candidates: []screen.Candidate{{TP: 1, Replicas: 2}, {TP: 2, Replicas: 1}},
		Workload: workload.Workload{
			Arrivals: workload.Poisson{Rate: 1}, // the search sets the rate
			Lengths:  workload.Random{InputLen: 1024, OutputLen: 256, RangeRatio: 0.5},
		},
		Requests: 600, Warmup: 60,
		Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.1}, 0.99),
		Seed:     1, Replications: 1, Start: 4, Precision: 1,
	}
	rep, err := study.Run()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rep.Rows {
		fmt.Printf("%s: %d GPUs, %d heads per rank, lambda* in [%g, %g) req/s, [%g, %g) per GPU\n",
			r.Candidate, r.GPUs, r.Shape.HeadsPerRank, r.Search.Lower, r.Search.Upper, r.LowerPerGPU, r.UpperPerGPU)
	}
	fmt.Println(rep.Verdict())
	// Output:
	// TP=1 x2: 2 GPUs, 32 heads per rank, lambda* in [32, 64) req/s, [16, 32) per GPU
	// TP=2 x1: 2 GPUs, 16 heads per rank, lambda* in [16, 32) req/s, [8, 16) per GPU
	// the model fits one GPU, so TP must beat replicas per card: TP=1 x2 sustains the most per GPU, lambda* >= 16.00 req/s per GPU, above every other candidate's bracket
}

// Candidates as `servesim tp --candidates` takes them: replicas of a TP
// degree (PxK), or vLLM's parallel sizes, here two data-parallel groups
// of TP=4 with expert parallelism, one engine of eight GPUs for a
// mixture-of-experts model.
func ExampleParseCandidates() {
	cs, err := screen.ParseCandidates("1x8,4x2,tp8,tp4dp2ep")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range cs {
		fmt.Printf("%-8s %-16s %d GPUs\n", c.Spec(), c, c.GPUs())
	}
	// Output:
	// 1x8      TP=1 x8          8 GPUs
	// 4x2      TP=4 x2          8 GPUs
	// 8x1      TP=8 x1          8 GPUs
	// tp4dp2ep TP=4 DP=2 EP x1  8 GPUs
}

// The ideal TP screen of docs/reference-numbers.md#tp-cost-model:
// projections at 120 TFLOP/s split 1/p, 2L all-reduces at α = 8 µs and
// B = 150 GB/s.
func Example_tpSpeedup() {
	ref := screen.ReferenceTPModel()
	fmt.Println(" T   TP=2   TP=4   TP=8")
	for _, tokens := range []float64{1, 4, 8, 16, 32} {
		fmt.Printf("%2.0f", tokens)
		for _, p := range []int{2, 4, 8} {
			fmt.Printf("  %.2fx", ref.Speedup(tokens, p))
		}
		fmt.Println()
	}
	star, _ := ref.Threshold(4)
	fmt.Printf("TP=4 pays off above T* = %.2f tokens\n", star)
	// Output:
	//  T   TP=2   TP=4   TP=8
	//  1  0.61x  0.72x  0.79x
	//  4  1.26x  1.81x  2.31x
	//  8  1.53x  2.42x  3.42x
	// 16  1.71x  2.91x  4.51x
	// 32  1.82x  3.25x  5.35x
	// TP=4 pays off above T* = 1.54 tokens
}
