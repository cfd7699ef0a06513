// Command disagg reproduces the shape of DistServe's motivating result
// (Zhong et al., OSDI 2024, Figure 1): a 13B model on A100-80GB GPUs,
// prompts of 512 tokens and outputs of 64, SLO P90 TTFT ≤ 0.4 s and P90
// TPOT ≤ 0.04 s. DistServe measured 1.6 req/s per GPU for vLLM colocated
// on one GPU and 10 req/s on two prefill GPUs plus one decode GPU (3.3
// req/s per GPU): disaggregation wins by 2.1× per GPU. It then flips the
// workload to decode-heavy (128-token prompts, 512-token outputs) at the
// same SLO, where the decode GPU is the bottleneck and the 2P1D split
// wastes its prefill GPUs: colocated wins per GPU.
//
// The colocated baseline is vLLM's prefill-first scheduler (chunked
// prefill off), the vLLM DistServe compared against; the model is
// Llama-2-13B's shape (config.json of meta-llama/Llama-2-13b-hf).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func main() {
	requests := flag.Int("n", 1500, "requests per run, warm-up included")
	flag.Parse()
	if err := run(os.Stdout, *requests); err != nil {
		fmt.Fprintln(os.Stderr, "disagg:", err)
		os.Exit(2)
	}
}

// Llama2_13B is Llama-2-13B's shape (meta-llama/Llama-2-13b-hf
// config.json), the 13B class of DistServe's Figure 1.
var Llama2_13B = cost.ModelSpec{Name: "llama-2-13b", Hidden: 5120, Intermediate: 13824, Layers: 40,
	Heads: 40, KVHeads: 40, HeadDim: 128, Vocab: 32000, MaxContext: 4096,
	WeightBytes: 2, KVBytes: 2, ActBytes: 2}

// SLO is DistServe Figure 1's: TTFT ≤ 0.4 s and TPOT ≤ 0.04 s for 90%.
var SLO = metrics.SLO{TTFT: 0.4, TPOT: 0.04}

// Row is one workload's answer: λ* per GPU, colocated and for each P:D
// split.
type Row struct {
	Name      string
	Colocated float64   // req/s per GPU (lower end of the bracket)
	Disagg    []float64 // req/s per GPU, one per Splits entry
}

// Splits are the P:D ratios studied (prefill, decode instances of one GPU).
var Splits = [][2]int{{2, 1}, {1, 1}, {1, 2}}

// Best returns the best split's index and its goodput per GPU over the
// colocated one.
func (r Row) Best() (int, float64) {
	b := 0
	for i, v := range r.Disagg {
		if v > r.Disagg[b] {
			b = i
		}
	}
	return b, r.Disagg[b] / r.Colocated
}

func engines() (colocated, prefill, decode batching.Config, err error) {
	g, err := cost.GPU("a100-80gb")
	if err != nil {
		return colocated, prefill, decode, err
	}
	base := batching.Defaults(Llama2_13B, g)
	base.MaxModelLen = 4096
	base.EnablePrefixCaching = false
	colocated = base
	colocated.EnableChunkedPrefill = false
	colocated.MaxNumBatchedTokens = 4096
	prefill, decode = base, base
	return colocated, prefill, decode, nil
}

func lambda(srv sim.ServerConfig, lengths workload.Lengths, requests int, start float64) (float64, error) {
	s := capacity.Search{
		Base: sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: lengths},
			Server: srv, Requests: requests, Warmup: requests / 10},
		Criteria: capacity.DefaultCriteria(SLO, 0.9), Seed: 1,
		Replications: 1, BoundaryReplications: 2, Start: start, Precision: 0.05,
	}
	res, err := s.Run()
	if err != nil {
		return 0, err
	}
	return res.Lower, nil
}

// Study returns the two workloads' rows.
func Study(requests int) ([]Row, error) {
	col, p, d, err := engines()
	if err != nil {
		return nil, err
	}
	var rows []Row
	for _, w := range []struct {
		name    string
		lengths workload.Lengths
	}{
		{"prefill-heavy (512 in, 64 out; DistServe Fig. 1)", workload.Fixed{Input: 512, Output: 64}},
		{"decode-heavy (128 in, 512 out)", workload.Fixed{Input: 128, Output: 512}},
	} {
		c, err := lambda(col, w.lengths, requests, 2)
		if err != nil {
			return nil, err
		}
		row := Row{Name: w.name, Colocated: c / float64(col.GPUs())}
		for _, sp := range Splits {
			pd := disagg.Config{Prefill: disagg.Pool{Engine: p, Instances: sp[0]}, Decode: disagg.Pool{Engine: d, Instances: sp[1]},
				Router: batching.LeastOutstanding}
			x, err := lambda(pd, w.lengths, requests, 4)
			if err != nil {
				return nil, err
			}
			row.Disagg = append(row.Disagg, x/float64(pd.GPUs()))
		}
		rows = append(rows, row)
	}
	return rows, nil
}

func run(w io.Writer, requests int) error {
	rows, err := Study(requests)
	if err != nil {
		return err
	}
	write(w, rows)
	return nil
}

// write prints the rows as a table beside DistServe's figures.
func write(w io.Writer, rows []Row) {
	fmt.Fprintln(w, "llama-2-13b on a100-80gb, Poisson arrivals, SLO: 90% with TTFT <= 0.4 s and TPOT <= 40 ms")
	fmt.Fprintln(w, "lambda* per GPU (req/s/GPU, lower end of a 5% bracket):")
	fmt.Fprintf(w, "%-48s %10s", "workload", "colocated")
	for _, sp := range Splits {
		fmt.Fprintf(w, " %9s", fmt.Sprintf("%dP%dD", sp[0], sp[1]))
	}
	fmt.Fprintf(w, " %12s\n", "best/coloc")
	for _, r := range rows {
		fmt.Fprintf(w, "%-48s %10.2f", r.Name, r.Colocated)
		for _, v := range r.Disagg {
			fmt.Fprintf(w, " %9.2f", v)
		}
		b, ratio := r.Best()
		fmt.Fprintf(w, " %6.2fx %dP%dD\n", ratio, Splits[b][0], Splits[b][1])
	}
	fmt.Fprintln(w, "DistServe (OSDI'24, Fig. 1), prefill-heavy: colocated 1.6, 2P1D 3.3 req/s/GPU: 2.1x")
}
