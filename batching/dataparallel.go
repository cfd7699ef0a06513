package batching

import (
	"math"
	"strconv"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// DPRouter names how requests reach the data-parallel groups.
type DPRouter string

// Data-parallel routers.
const (
	// DPBalanced sends each request to the group of least
	// 4·waiting + running, ties to the lowest index: vLLM's internal
	// load balancer (DPLBAsyncMPClient.get_core_engine_for_request), read
	// without the up to 100 ms delay of its coordinator's counts. The
	// default.
	DPBalanced DPRouter = "balanced"
	// DPFirstGroup sends every request to group 0: vLLM's data-parallel
	// client for an external load balancer (DPAsyncMPClient) given
	// requests that name no rank, which it sends to its own engine; the
	// other groups only take part in the MoE layers.
	DPFirstGroup DPRouter = "first-group"
)

// CUDAGraphTokens returns the most tokens of a step vLLM runs as a
// captured CUDA graph under c: its default max_cudagraph_capture_size,
// min(2·max_num_seqs, 512, max_num_batched_tokens)
// (vllm/config/vllm.py, VllmConfig._set_cudagraph_sizes, without
// speculative decoding). Data-parallel groups pad their steps to the
// largest group's up to this size.
func CUDAGraphTokens(c Config) int {
	return min(2*c.MaxNumSeqs, 512, c.MaxNumBatchedTokens)
}

// dataParallel is the server of a mixture-of-experts deployment with
// attention data parallelism (Deployment.DP = D > 1, vLLM's
// --data-parallel-size with a MoE model): D groups of TP ranks, each an
// engine with its own scheduler, waiting queue and KV pool, that share the
// MoE layers and therefore step together.
//
// vLLM aligns the groups' forward passes: every MoE layer gathers all
// groups' tokens, so a group cannot run its next step before the others
// finish theirs, and a group with nothing to run takes part with an empty
// ("dummy") batch while any group has work (docs/serving/
// data_parallel_deployment.md). Here a step starts every group with work
// at once and ends when the slowest of them does: its duration is the
// largest of the groups' step times, each priced with its own batch for
// attention and with all groups' tokens together for the MoE layers
// (cost.Batch.DPTokens): the sum of the groups' tokens, or, when every
// group's step fits a CUDA graph (at most CUDAGraphTokens tokens), D
// times the largest, as vLLM pads every group to the largest group's
// tokens when the groups run CUDA graphs (vllm/v1/worker/dp_utils.py,
// _post_process_dp_padding) and runs larger steps eagerly, unpadded. One
// group's prefill therefore holds every other
// group's decodes, as on the real deployment. The dummy batches' own cost
// (one token) is not counted.
//
// Requests go to the group of least 4·waiting + running (waiting counts
// the requests still in their frontend overhead), ties to the lowest
// index (DPBalanced, vLLM's internal balancer), or all to group 0
// (DPFirstGroup; Config.DPRouter).
type dataParallel struct {
	cfg    Config
	env    *sim.Env
	groups []*engine

	graphTokens  int // CUDAGraphTokens
	busy, kicked bool
	stepping     []bool          // groups with a step under way
	batches      []cost.Batch    // their batches
	costs        []cost.StepCost // and costs
	onStepEnd    event.Handler
	onKick       event.Handler
}

// newDataParallel builds the groups, named prefix + "dp" + index.
func newDataParallel(c Config, r *resolved, env *sim.Env, prefix string) *dataParallel {
	d := &c.Deployment
	n := d.DP
	dp := &dataParallel{cfg: c, env: env, groups: make([]*engine, n), graphTokens: CUDAGraphTokens(c),
		stepping: make([]bool, n), batches: make([]cost.Batch, n), costs: make([]cost.StepCost, n)}
	for i := range dp.groups {
		e := newEngine(r, env, prefix+"dp"+strconv.Itoa(i))
		e.group = dp
		dp.groups[i] = e
	}
	dp.onStepEnd = dp.endStep
	dp.onKick = dp.kick
	return dp
}

// Arrive sends r to the group of least 4·waiting + running, or to group
// 0 under DPFirstGroup.
func (dp *dataParallel) Arrive(r *metrics.Request) {
	if dp.cfg.DPRouter == DPFirstGroup {
		dp.groups[0].Arrive(r)
		return
	}
	best, bestScore := 0, math.MaxInt
	for i, e := range dp.groups {
		if s := 4*(e.waiting.pending()+e.waiting.Len()) + e.running; s < bestScore {
			best, bestScore = i, s
		}
	}
	dp.groups[best].Arrive(r)
}

// wake starts a step at the end of this instant, after same-time
// arrivals, unless one is under way.
func (dp *dataParallel) wake() {
	if !dp.busy && !dp.kicked {
		dp.kicked = true
		dp.env.Schedule(dp.env.Now(), event.Late, dp.onKick, 0)
	}
}

func (dp *dataParallel) kick(int64) {
	dp.kicked = false
	if !dp.busy {
		dp.startStep()
	}
}

// startStep forms every group's next step and launches them together, or
// goes idle when no group has work.
func (dp *dataParallel) startStep() {
	tokens, most, any := 0, 0, false
	for i, e := range dp.groups {
		dp.stepping[i] = e.form()
		if dp.stepping[i] {
			e.batch(&dp.batches[i])
			t := dp.batches[i].Tokens()
			tokens += t
			most = max(most, t)
			any = true
		}
	}
	dp.busy = any
	if !any {
		return
	}
	if most <= dp.graphTokens {
		// Every group runs the largest group's CUDA graph: padded to its
		// tokens.
		tokens = most * len(dp.groups)
	}
	dt := 0.0
	for i, e := range dp.groups {
		if !dp.stepping[i] {
			continue
		}
		b := &dp.batches[i]
		b.DPTokens = tokens
		dp.costs[i] = e.price(b)
		if e.sp != nil { // speculative decoding (spec.go): the proposer's time
			e.specCost(b, &dp.costs[i])
		}
		dp.costs[i].Time += e.offloadStall() // KV offloading's synchronous transfers
		t := dp.costs[i].Time
		if !(t > 0) || math.IsInf(t, 1) {
			e.record(b, &dp.costs[i]) // aborts the run
			dp.busy = false
			return
		}
		dt = max(dt, t)
	}
	for i, e := range dp.groups {
		if dp.stepping[i] {
			// The group is held for the whole step.
			dp.costs[i].Time = dt
			e.record(&dp.batches[i], &dp.costs[i])
			e.busy = true
		}
	}
	dp.env.Schedule(dp.env.Now()+dt, event.Normal, dp.onStepEnd, 0)
}

// endStep applies every group's step, then starts the next.
func (dp *dataParallel) endStep(int64) {
	for i, e := range dp.groups {
		if dp.stepping[i] {
			e.finishStep()
		}
	}
	dp.startStep()
}

// Series returns every group's counters over time (sim.SeriesReporter).
func (dp *dataParallel) Series() []*metrics.Series { return seriesOf(dp.groups) }

// GPUs reports TP·DP (sim.GPUCounter).
func (dp *dataParallel) GPUs() int { return dp.cfg.GPUs() }

// Stats reports the groups' counters combined as a Cluster's replicas'
// are (counts and totals summed, averages over groups: steps counts every
// group's steps, and the deployment took steps ÷ groups or more), then
// the groups and each group's requests.
func (dp *dataParallel) Stats() []metrics.Stat {
	out := mergedStats(dp.groups, "data-parallel groups")
	out = append(out, metrics.Stat{Name: "dp_groups", Value: float64(len(dp.groups))})
	for _, e := range dp.groups {
		out = append(out, metrics.Stat{Name: e.name + "_requests", Value: float64(e.routed)})
	}
	return out
}

// outstanding returns the requests the groups hold (waiting, running or
// in their frontend overhead): a replica's load for LeastOutstanding.
func (dp *dataParallel) outstanding() int {
	n := 0
	for _, e := range dp.groups {
		n += e.outstanding()
	}
	return n
}

// dpCluster is replicas of a data-parallel deployment behind a router
// (Cluster with Engine.Deployment.DP > 1 and Replicas > 1): each replica's
// groups step together, the replicas independently.
type dpCluster struct {
	cfg      Cluster
	replicas []*dataParallel
	groups   []*engine // every replica's, in order
	next     int
}

func newDPCluster(c Cluster, r *resolved, env *sim.Env) *dpCluster {
	cl := &dpCluster{cfg: c, replicas: make([]*dataParallel, c.Replicas)}
	for i := range cl.replicas {
		cl.replicas[i] = newDataParallel(c.Engine, r, env, "replica"+strconv.Itoa(i)+"_")
		cl.groups = append(cl.groups, cl.replicas[i].groups...)
	}
	return cl
}

// Arrive routes r to a replica as Cluster.Router says (RoundRobin, or
// LeastOutstanding over each replica's groups together); the replica
// sends it to one of its groups.
func (c *dpCluster) Arrive(r *metrics.Request) {
	// Validate refuses PrefixAware here.
	c.replicas[pick(c.cfg.Router, &c.next, c.replicas)].Arrive(r)
}

// Series returns every group's counters over time (sim.SeriesReporter).
func (c *dpCluster) Series() []*metrics.Series { return seriesOf(c.groups) }

// GPUs reports Replicas × TP·DP (sim.GPUCounter).
func (c *dpCluster) GPUs() int { return c.cfg.GPUs() }

// Stats reports every group's counters combined as dataParallel's are,
// then the replicas, the groups of each and each replica's requests.
func (c *dpCluster) Stats() []metrics.Stat {
	out := mergedStats(c.groups, "data-parallel groups")
	out = append(out, metrics.Stat{Name: "replicas", Value: float64(len(c.replicas))},
		metrics.Stat{Name: "dp_groups", Value: float64(len(c.replicas[0].groups))})
	for i, d := range c.replicas {
		routed := 0
		for _, e := range d.groups {
			routed += e.routed
		}
		out = append(out, metrics.Stat{Name: "replica" + strconv.Itoa(i) + "_requests", Value: float64(routed)})
	}
	return out
}
