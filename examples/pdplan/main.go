// Command pdplan plans llama-3.1-70b at a target rate two ways, colocated
// (n TP=4 replicas of one GPU type behind least-outstanding routing) and
// disaggregated (x prefill instances of TP=4 H100 and y decode instances
// of TP=4 A100 over 400 Gb/s RDMA, plan.CheapestPD), under one SLO, for a
// prefill-heavy and a decode-heavy workload, and prints the cheapest of
// each with the vllm serve lines of the P/D pools and the proxy. Prices
// are plan.DefaultPrices. docs/disaggregation.md explains the outcome.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func main() {
	requests := flag.Int("n", 600, "requests per run, warm-up included")
	reps := flag.Int("runs", 1, "replications per configuration")
	flag.Parse()
	cases, err := Study(*requests, *reps)
	if err == nil {
		write(os.Stdout, cases)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pdplan:", err)
		os.Exit(2)
	}
}

// Case is one workload's answer.
type Case struct {
	Name      string
	Rate      float64
	SLO       metrics.SLO
	Colocated []Colocated // cheapest passing replica count per GPU type
	PD        plan.PDChoice
	PDConfig  plan.PD
}

// Colocated is the cheapest passing replica count of one GPU type.
type Colocated struct {
	GPU      string
	Replicas int // 0: none up to MaxReplicas passed
	Cost     float64
}

// MaxReplicas bounds the colocated search and each P/D pool.
const MaxReplicas = 6

func engine(gpu string) (plan.Engine, error) {
	m, err := cost.Model("llama-3.1-70b")
	if err != nil {
		return plan.Engine{}, err
	}
	g, err := cost.GPU(gpu)
	if err != nil {
		return plan.Engine{}, err
	}
	c := batching.Defaults(m, g)
	c.Deployment.TP = 4
	c.MaxModelLen = 8192
	c.EnablePrefixCaching = false
	return plan.Engine{Config: c}, nil
}

func passes(obj plan.Objective, s plan.Search, srv sim.ServerConfig) (bool, error) {
	w := obj.Workload
	w.Arrivals = workload.Poisson{Rate: obj.Rate}
	for i := range s.Replications {
		res, err := sim.Run(sim.Config{Workload: w, Server: srv, Requests: s.Requests, Warmup: s.Warmup,
			Seed: event.ReplicationSeed(s.Seed, i), SLO: obj.Criteria.SLO, SummaryOnly: true})
		if err != nil {
			return false, err
		}
		if !obj.Criteria.Judge(res, obj.Rate).Pass {
			return false, nil
		}
	}
	return true, nil
}

// Study plans both workloads.
func Study(requests, reps int) ([]Case, error) {
	prices := plan.DefaultPrices()
	s := plan.DefaultSearch()
	s.Requests, s.Warmup, s.Replications = requests, requests/10, reps
	var out []Case
	for _, w := range []struct {
		name    string
		lengths workload.Lengths
		rate    float64
		slo     metrics.SLO
	}{
		{"prefill-heavy: 6000 in, 200 out", workload.Random{InputLen: 6000, OutputLen: 200, RangeRatio: 0.2}, 2, metrics.SLO{TTFT: 2, TPOT: 0.04}},
		{"decode-heavy: 300 in, 1000 out", workload.Random{InputLen: 300, OutputLen: 1000, RangeRatio: 0.2}, 3, metrics.SLO{TTFT: 1.5, TPOT: 0.05}},
	} {
		obj := plan.Objective{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: w.lengths}, Rate: w.rate,
			Criteria: capacity.DefaultCriteria(w.slo, 0.95)}
		c := Case{Name: w.name, Rate: w.rate, SLO: w.slo}
		for _, gpu := range []string{"h100-sxm", "a100-80gb"} {
			e, err := engine(gpu)
			if err != nil {
				return nil, err
			}
			col := Colocated{GPU: gpu}
			for n := 1; n <= MaxReplicas; n++ {
				ok, err := passes(obj, s, e.Servers(n))
				if err != nil {
					return nil, err
				}
				if ok {
					col.Replicas, col.Cost = n, float64(n*e.Config.GPUs())*prices[gpu]
					break
				}
			}
			c.Colocated = append(c.Colocated, col)
		}
		p, err := engine("h100-sxm")
		if err != nil {
			return nil, err
		}
		d, err := engine("a100-80gb")
		if err != nil {
			return nil, err
		}
		c.PDConfig = plan.PD{Prefill: p, Decode: d, PrefillPrice: prices["h100-sxm"], DecodePrice: prices["a100-80gb"]}
		ch, err := plan.CheapestPD(obj, s, c.PDConfig, MaxReplicas)
		if err != nil {
			return nil, err
		}
		c.PD = ch
		out = append(out, c)
	}
	return out, nil
}

// Best returns the cheapest colocated answer (ok false when none passed).
func (c Case) Best() (Colocated, bool) {
	var best Colocated
	for _, x := range c.Colocated {
		if x.Replicas > 0 && (best.Replicas == 0 || x.Cost < best.Cost) {
			best = x
		}
	}
	return best, best.Replicas > 0
}

func write(w io.Writer, cases []Case) {
	for _, c := range cases {
		fmt.Fprintf(w, "llama-3.1-70b, %s, %.0f req/s, SLO: 95%% with TTFT <= %.1f s and TPOT <= %.0f ms\n", c.Name, c.Rate, c.SLO.TTFT, 1000*c.SLO.TPOT)
		for _, x := range c.Colocated {
			if x.Replicas == 0 {
				fmt.Fprintf(w, "  colocated %-10s none of 1..%d TP=4 replicas passes\n", x.GPU, MaxReplicas)
				continue
			}
			fmt.Fprintf(w, "  colocated %-10s %d x TP=4: %2d GPUs, $%.2f/h\n", x.GPU, x.Replicas, 4*x.Replicas, x.Cost)
		}
		if !c.PD.Found {
			fmt.Fprintf(w, "  P/D h100 prefill + a100 decode: nothing up to %dP%dD passes\n", MaxReplicas, MaxReplicas)
		} else {
			fmt.Fprintf(w, "  P/D  %dP (h100-sxm TP=4) + %dD (a100-80gb TP=4): %2d GPUs, $%.2f/h (%d pairs simulated)\n",
				c.PD.Prefill, c.PD.Decode, 4*(c.PD.Prefill+c.PD.Decode), c.PD.CostPerHour, c.PD.Tried)
		}
		best, ok := c.Best()
		switch {
		case c.PD.Found && (!ok || c.PD.CostPerHour < best.Cost):
			fmt.Fprintln(w, "  -> P/D wins; its deployment:")
			for _, l := range plan.PDServeCommands(plan.HFModelID("llama-3.1-70b"), c.PDConfig, c.PD.Prefill, c.PD.Decode) {
				fmt.Fprintln(w, "     "+l)
			}
		case ok:
			fmt.Fprintf(w, "  -> colocated on %s wins\n", best.GPU)
		default:
			fmt.Fprintln(w, "  -> nothing passes")
		}
		fmt.Fprintln(w)
	}
}
