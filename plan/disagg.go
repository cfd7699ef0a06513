package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
)

// PD is a disaggregated candidate: the engine of each pool (its GPU, TP
// and limits), each pool's price per GPU-hour, the KV link and the
// proxy's latency. See package disagg.
type PD struct {
	Prefill, Decode           Engine
	PrefillPrice, DecodePrice float64 // US dollars per GPU-hour
	Link                      topology.Link
	ProxyOverhead             float64 // seconds
}

// PDChoice is CheapestPD's answer: the instance counts, their cost, and
// the verdicts of the runs that passed (or of the last configuration
// tried, when none did).
type PDChoice struct {
	Prefill, Decode int
	CostPerHour     float64
	Found           bool
	Verdicts        []capacity.Verdict
	// Tried counts the (prefill, decode) pairs simulated.
	Tried int
}

// Config returns the disagg.Config of x prefill and y decode instances.
func (c PD) Config(x, y int) disagg.Config {
	return disagg.Config{Prefill: disagg.Pool{Engine: c.Prefill.Config, Instances: x},
		Decode: disagg.Pool{Engine: c.Decode.Config, Instances: y},
		Router: batching.LeastOutstanding, Link: c.Link, ProxyOverhead: c.ProxyOverhead}
}

// cost returns the dollars per hour of x prefill and y decode instances.
func (c PD) cost(x, y int) float64 {
	return float64(x*c.Prefill.Config.GPUs())*c.PrefillPrice + float64(y*c.Decode.Config.GPUs())*c.DecodePrice
}

// CheapestPD returns the cheapest (prefill, decode) instance counts, each
// in [1, maxInstances], whose s.Replications runs of s.Requests requests
// at obj.Rate all pass obj.Criteria. Pairs are tried in increasing cost
// (ties: fewer GPUs, then fewer prefill instances); a pair is skipped
// without simulation when a pair with at least as many instances on both
// sides has failed (more instances never serve worse under
// least-outstanding routing, an assumption of the search, not a theorem).
func CheapestPD(obj Objective, s Search, c PD, maxInstances int) (PDChoice, error) {
	if err := obj.Validate(); err != nil {
		return PDChoice{}, err
	}
	switch {
	case maxInstances < 1 || maxInstances > disagg.MaxInstances:
		return PDChoice{}, fmt.Errorf("%w: max instances %d must be in [1, %d]", ErrInvalid, maxInstances, disagg.MaxInstances)
	case !(c.PrefillPrice > 0) || math.IsInf(c.PrefillPrice, 1) || !(c.DecodePrice > 0) || math.IsInf(c.DecodePrice, 1):
		return PDChoice{}, fmt.Errorf("%w: prices %v and %v per GPU-hour must be finite numbers > 0", ErrInvalid, c.PrefillPrice, c.DecodePrice)
	case s.Requests < 1 || s.Replications < 1 || s.Warmup < 0 || s.Warmup >= s.Requests:
		return PDChoice{}, fmt.Errorf("%w: search requests %d, warmup %d and replications %d must be >= 1, in [0, requests) and >= 1", ErrInvalid, s.Requests, s.Warmup, s.Replications)
	}
	if err := c.Config(1, 1).Validate(); err != nil {
		return PDChoice{}, err
	}
	w, err := obj.workload()
	if err != nil {
		return PDChoice{}, err
	}
	type pair struct{ x, y int }
	var pairs []pair
	for x := 1; x <= maxInstances; x++ {
		for y := 1; y <= maxInstances; y++ {
			pairs = append(pairs, pair{x, y})
		}
	}
	slices.SortStableFunc(pairs, func(a, b pair) int {
		ca, cb := c.cost(a.x, a.y), c.cost(b.x, b.y)
		switch {
		case ca != cb:
			return cmpFloat(ca, cb)
		case a.x+a.y != b.x+b.y:
			return (a.x + a.y) - (b.x + b.y)
		}
		return a.x - b.x
	})
	var failed []pair
	var out PDChoice
	for _, p := range pairs {
		if slices.ContainsFunc(failed, func(f pair) bool { return f.x >= p.x && f.y >= p.y }) {
			continue
		}
		out.Tried++
		pass := true
		var vs []capacity.Verdict
		for i := range s.Replications {
			res, err := sim.Run(sim.Config{Workload: w, Server: c.Config(p.x, p.y), Requests: s.Requests, Warmup: s.Warmup,
				Seed: event.ReplicationSeed(s.Seed, i), SLO: obj.Criteria.SLO, SummaryOnly: true})
			if err != nil {
				return PDChoice{}, err
			}
			v := obj.Criteria.Judge(res, obj.Rate)
			vs = append(vs, v)
			if !v.Pass {
				pass = false
				break
			}
		}
		out.Prefill, out.Decode, out.CostPerHour, out.Verdicts = p.x, p.y, c.cost(p.x, p.y), vs
		if pass {
			out.Found = true
			return out, nil
		}
		failed = append(failed, p)
	}
	return out, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// PDServeCommands returns the command lines of a P/D deployment on real
// hardware with vLLM's NIXL connector: one `vllm serve` per instance
// (prefill instances on ports 8100, 8101, …, decode on 8200, …; run each
// on its own GPUs, CUDA_VISIBLE_DEVICES or one host each) and the proxy
// that sends each request to a prefill instance with max_tokens 1 and then
// to a decode instance (vLLM's
// tests/v1/kv_connector/nixl_integration/toy_proxy_server.py).
func PDServeCommands(model string, c PD, x, y int) []string {
	const kv = `--kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'`
	var out, pports, dports []string
	for i := range x {
		port := strconv.Itoa(8100 + i)
		pports = append(pports, port)
		out = append(out, ServeCommand(model, c.Prefill, 1)+" --port "+port+" "+kv+"   # prefill "+strconv.Itoa(i)+", "+c.Prefill.Config.Deployment.GPU.Name)
	}
	for j := range y {
		port := strconv.Itoa(8200 + j)
		dports = append(dports, port)
		out = append(out, ServeCommand(model, c.Decode, 1)+" --port "+port+" "+kv+"   # decode "+strconv.Itoa(j)+", "+c.Decode.Config.Deployment.GPU.Name)
	}
	hosts := func(n int) string { return strings.TrimSpace(strings.Repeat("localhost ", n)) }
	return append(out, "python toy_proxy_server.py --port 8000 --prefiller-hosts "+hosts(x)+" --prefiller-ports "+strings.Join(pports, " ")+
		" --decoder-hosts "+hosts(y)+" --decoder-ports "+strings.Join(dports, " "))
}
