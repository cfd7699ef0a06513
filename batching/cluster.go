package batching

import (
	"math"
	"strconv"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// Router names how a Cluster spreads requests over its replicas.
type Router string

// Routers.
const (
	// RoundRobin sends request i to replica i mod k.
	RoundRobin Router = "round-robin"
	// LeastOutstanding sends each request to the replica holding the fewest
	// requests (waiting, running or in its request overhead); ties go to
	// the lowest index.
	LeastOutstanding Router = "least-outstanding"
	// PrefixAware sends each request to the replica where it costs least,
	// balancing cache reuse against load as Dynamo's KV router does
	// (cost = overlap_score_weight × prefill blocks + active blocks): the
	// cost of replica i is
	//
	//	PrefixWeight × (B − hᵢ) + Aᵢ
	//
	// where B is the request's prompt blocks, hᵢ the blocks of its longest
	// prefix replica i has cached (what its lookup would hit) and Aᵢ the
	// prompt blocks of the requests replica i holds. Equal costs go to the
	// first replica at or after the one after the last chosen, so an idle
	// cluster is served round-robin. Without prefix caching hᵢ = 0 and it
	// balances prompt blocks.
	PrefixAware Router = "prefix-aware"
)

// DefaultPrefixWeight is PrefixAware's weight of a block to compute
// against a block of load: 1, Dynamo's default
// --router-kv-overlap-score-weight.
const DefaultPrefixWeight = 1.0

// Cluster is Replicas identical engine replicas behind a router, fed by one
// arrival stream: the "p replicas of TP=1" side of a TP comparison, or any
// data-parallel deployment of a dense model. An Engine with
// Deployment.DP > 1 is a replica of DP groups stepping together (see
// Config); replicas of it are independent deployments behind RoundRobin or
// LeastOutstanding (a replica's load is its groups' together), at most
// MaxDataParallel groups in all. It occupies Replicas × Engine.GPUs() GPUs.
type Cluster struct {
	Engine   Config `json:"engine" yaml:"engine"`
	Replicas int    `json:"replicas" yaml:"replicas"`
	Router   Router `json:"router" yaml:"router"`
	// PrefixWeight weighs the blocks a request would compute against the
	// blocks a replica holds, for the PrefixAware router; 0 means
	// DefaultPrefixWeight.
	PrefixWeight float64 `json:"prefix_weight,omitempty" yaml:"prefix_weight,omitempty"`
}

// Validate checks the engine, Replicas ≥ 1, a known router and a finite
// PrefixWeight ≥ 0.
func (c Cluster) Validate() error {
	if c.Replicas < 1 {
		return fieldErr("replicas", c.Replicas, "must be >= 1")
	}
	if c.Router != RoundRobin && c.Router != LeastOutstanding && c.Router != PrefixAware {
		return fieldErr("router", string(c.Router), "must be %q, %q or %q", RoundRobin, LeastOutstanding, PrefixAware)
	}
	if !(c.PrefixWeight >= 0) || math.IsInf(c.PrefixWeight, 1) {
		return fieldErr("prefix_weight", c.PrefixWeight, "must be a finite number >= 0")
	}
	if dp := c.Engine.Deployment.DP; dp > 1 && c.Replicas > 1 {
		switch {
		case c.Router == PrefixAware:
			return fieldErr("router", string(c.Router), "over replicas of a deployment with dp %d is not modelled: use %q or %q", dp, RoundRobin, LeastOutstanding)
		case c.Replicas > MaxDataParallel/dp:
			return fieldErr("replicas", c.Replicas, "of a deployment with dp %d make more than %d data-parallel groups", dp, MaxDataParallel)
		}
	}
	return c.Engine.Validate()
}

// GPUs returns Replicas × Engine.GPUs().
func (c Cluster) GPUs() int { return c.Replicas * c.Engine.GPUs() }

// WithoutSeries returns c with its replicas' time series off
// (Config.WithoutSeries).
func (c Cluster) WithoutSeries() sim.ServerConfig {
	c.Engine.noSeries = true
	return c
}

// NewServer builds the replicas for one run.
func (c Cluster) NewServer(env *sim.Env) (sim.Server, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r, err := c.Engine.resolve()
	if err != nil {
		return nil, err
	}
	if c.Engine.Deployment.DP > 1 {
		if c.Replicas == 1 {
			return newDataParallel(c.Engine, r, env, ""), nil
		}
		return newDPCluster(c, r, env), nil
	}
	cl := &cluster{cfg: c, engines: make([]*engine, c.Replicas), weight: c.PrefixWeight}
	if cl.weight == 0 {
		cl.weight = DefaultPrefixWeight
	}
	for i := range cl.engines {
		cl.engines[i] = newEngine(r, env, "replica"+strconv.Itoa(i))
	}
	return cl, nil
}

type cluster struct {
	cfg     Cluster
	engines []*engine
	next    int
	weight  float64
}

func (c *cluster) Arrive(r *metrics.Request) {
	var i int
	if c.cfg.Router == PrefixAware {
		i = c.prefixAware(r)
	} else {
		i = pick(c.cfg.Router, &c.next, c.engines)
	}
	c.engines[i].Arrive(r)
}

// pick returns the replica that RoundRobin (advancing *next) or
// LeastOutstanding (the fewest requests held, ties to the lowest index)
// sends the next request to: an engine of a Cluster, or a data-parallel
// deployment of one.
func pick[R interface{ outstanding() int }](router Router, next *int, replicas []R) int {
	if router == RoundRobin {
		i := *next
		*next = (i + 1) % len(replicas)
		return i
	}
	i, best := 0, replicas[0].outstanding()
	for j, e := range replicas[1:] {
		if o := e.outstanding(); o < best {
			i, best = j+1, o
		}
	}
	return i
}

// prefixAware returns the replica of least cost (see PrefixAware).
// O(replicas × hit blocks).
func (c *cluster) prefixAware(r *metrics.Request) int {
	k := len(c.engines)
	blocks := c.engines[0].blocks(r.Input)
	best, bestCost := -1, math.Inf(1)
	for n := range k {
		j := (c.next + n) % k
		e := c.engines[j]
		cost := c.weight*float64(blocks-e.cachedPrefix(r)) + float64(e.active)
		if cost < bestCost {
			best, bestCost = j, cost
		}
	}
	c.next = (best + 1) % k
	return best
}

// Series returns every replica's counters over time (sim.SeriesReporter).
func (c *cluster) Series() []*metrics.Series { return seriesOf(c.engines) }

// GPUs reports Replicas × Engine.Deployment.TP (sim.GPUCounter).
func (c *cluster) GPUs() int { return c.cfg.GPUs() }

// Stats reports the replicas' counters combined: counts and totals summed,
// averages and maxima over replicas (mean of means, max of maxima), then
// each replica's request count.
func (c *cluster) Stats() []metrics.Stat {
	out := mergedStats(c.engines, "replicas")
	k := float64(len(c.engines))
	out = append(out, metrics.Stat{Name: "replicas", Value: k})
	for _, e := range c.engines {
		out = append(out, metrics.Stat{Name: e.name + "_steps", Value: float64(e.stats.steps)})
	}
	if c.cfg.Engine.EnablePrefixCaching {
		out = append(out, c.balance()...)
	}
	return out
}

// balance reports how the router spread the work: each replica's requests
// and prefix-cache hit rate, and the load imbalance, the busiest
// replica's busy time over the mean busy time (1: even).
func (c *cluster) balance() []metrics.Stat {
	var out []metrics.Stat
	var sum, most float64
	for _, e := range c.engines {
		out = append(out,
			metrics.Stat{Name: e.name + "_requests", Value: float64(e.routed)},
			metrics.RatioStat(e.name+"_prefix_cache_hit_rate", float64(e.stats.hits), float64(e.stats.queries)))
		sum += e.stats.busy
		most = max(most, e.stats.busy)
	}
	imbalance := 0.0
	if sum > 0 {
		imbalance = most / (sum / float64(len(c.engines)))
	}
	return append(out, metrics.Stat{Name: "load_imbalance", Merge: metrics.Max, Value: imbalance})
}
