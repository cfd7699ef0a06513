package batching

import (
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
)

// Cluster is Replicas identical engine replicas behind a router, fed by one
// arrival stream: the "p replicas of TP=1" side of a TP comparison, or any
// data-parallel deployment. It occupies Replicas × Engine.Deployment.TP GPUs.
type Cluster struct {
	Engine   Config `json:"engine" yaml:"engine"`
	Replicas int    `json:"replicas" yaml:"replicas"`
	Router   Router `json:"router" yaml:"router"`
}

// Validate checks the engine, Replicas ≥ 1 and a known router.
func (c Cluster) Validate() error {
	if c.Replicas < 1 {
		return invalidf("replicas %d must be >= 1", c.Replicas)
	}
	if c.Router != RoundRobin && c.Router != LeastOutstanding {
		return invalidf("router %q must be %q or %q", c.Router, RoundRobin, LeastOutstanding)
	}
	return c.Engine.Validate()
}

// GPUs returns Replicas × Engine.Deployment.TP.
func (c Cluster) GPUs() int { return c.Replicas * c.Engine.GPUs() }

// NewServer builds the replicas for one run.
func (c Cluster) NewServer(env *sim.Env) (sim.Server, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	r, err := c.Engine.resolve()
	if err != nil {
		return nil, err
	}
	cl := &cluster{cfg: c, engines: make([]*engine, c.Replicas)}
	for i := range cl.engines {
		cl.engines[i] = newEngine(r, env, "replica"+strconv.Itoa(i))
	}
	return cl, nil
}

type cluster struct {
	cfg     Cluster
	engines []*engine
	next    int
}

func (c *cluster) Arrive(r *metrics.Request) {
	i := 0
	switch c.cfg.Router {
	case RoundRobin:
		i = c.next
		c.next = (c.next + 1) % len(c.engines)
	case LeastOutstanding:
		best := c.engines[0].outstanding()
		for j, e := range c.engines[1:] {
			if o := e.outstanding(); o < best {
				i, best = j+1, o
			}
		}
	}
	c.engines[i].Arrive(r)
}

// Series returns every replica's counters over time (sim.SeriesReporter).
func (c *cluster) Series() []*metrics.Series {
	out := make([]*metrics.Series, len(c.engines))
	for i, e := range c.engines {
		out[i] = e.stats.series
	}
	return out
}

// GPUs reports Replicas × Engine.Deployment.TP (sim.GPUCounter).
func (c *cluster) GPUs() int { return c.cfg.GPUs() }

// Stats reports the replicas' counters combined: counts and totals summed,
// averages and maxima over replicas (mean of means, max of maxima), then
// each replica's request count.
func (c *cluster) Stats() []metrics.Stat {
	lists := make([][]metrics.Stat, len(c.engines))
	for i, e := range c.engines {
		lists[i] = e.Stats()
	}
	out, err := metrics.MergeStats(lists)
	if err != nil {
		panic("batching: replicas report different counters: " + err.Error())
	}
	k := float64(len(c.engines))
	out = append(out, metrics.Stat{Name: "replicas", Value: k})
	for _, e := range c.engines {
		out = append(out, metrics.Stat{Name: e.name + "_steps", Value: float64(e.stats.steps)})
	}
	return out
}
