package batching

import (
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// A Probe observes one Replica for a caller that manages replicas itself
// (the fleet package): the engine calls it at every step it forms and for
// every request that leaves it. Calls happen inside the run's events; a
// Probe must not call back into the replica.
type Probe interface {
	// Step reports a step starting now (sim.Env.Now) that lasts dt
	// seconds, whose utilisation is util in [0, 1]: the larger of the
	// step's achieved bytes over the GPU's peak bandwidth and its FLOPs
	// over the peak FLOP/s, per rank (the step's MBU or MFU, whichever
	// binds); 1 when Config.StepTime replaces the cost model, which gives
	// no bytes or FLOPs.
	Step(dt, util float64)
	// Ended reports that r leaves the replica now: completed when true
	// (the record's Done and Status are not yet set), else rejected on
	// arrival. It is called before the run records the end.
	Ended(r *metrics.Request, completed bool)
}

// A Replica is one engine replica that a caller builds, feeds and
// observes itself, for fleets whose replicas come and go during a run.
// Its data-parallel size must be 1.
type Replica struct{ e *engine }

// NewReplica builds a replica of c in env, named name in its stats, that
// reports to p (nil: no probe).
func NewReplica(c Config, env *sim.Env, name string, p Probe) (*Replica, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.Deployment.DP > 1 {
		return nil, invalidf("dp %d: a fleet replica must have dp 1 (use tensor parallelism or more replicas)", c.Deployment.DP)
	}
	r, err := c.resolve()
	if err != nil {
		return nil, err
	}
	e := newEngine(r, env, name)
	e.probe = p
	e.stats.series = nil // nothing reads a fleet replica's time series
	return &Replica{e: e}, nil
}

// Arrive hands r to the replica.
func (r *Replica) Arrive(req *metrics.Request) { r.e.Arrive(req) }

// Outstanding returns the requests the replica holds: in its request
// overhead, waiting or running.
func (r *Replica) Outstanding() int { return r.e.outstanding() }

// Running returns the requests scheduled (vLLM's num_requests_running).
func (r *Replica) Running() int { return r.e.running }

// Waiting returns the requests not yet scheduled, request overhead and
// KV loads included (vLLM's num_requests_waiting).
func (r *Replica) Waiting() int { return r.e.waitingCount() }

// KVUsage returns the fraction of KV blocks requests hold (vLLM's
// kv_cache_usage_perc, as a fraction).
func (r *Replica) KVUsage() float64 { return float64(r.e.usedBlocks) / float64(r.e.cfg.pool.Blocks) }

// GPUs returns the replica's GPU count.
func (r *Replica) GPUs() int { return r.e.GPUs() }

// Stats returns the replica's counters, as Engine's.
func (r *Replica) Stats() []metrics.Stat { return r.e.Stats() }

// stepUtil is the utilisation Probe.Step reports for a step of cost c.
func (s *stats) stepUtil(c *cost.StepCost) float64 {
	if s.peakBandwidth <= 0 || c.Time <= 0 {
		return 1
	}
	u := max(c.Bytes/(c.Time*s.peakBandwidth), c.FLOPs/(c.Time*s.peakFLOPS))
	return min(max(u, 0), 1)
}
