package batching

import (
	"math"
	"strconv"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
)

// MaxPipelineStages is the most pipeline stages a Pipeline may have.
const MaxPipelineStages = 64

// Pipeline is an engine split into Stages pipeline-parallel stages over
// its layers (vLLM's --pipeline-parallel-size), each stage
// Engine.Deployment.TP GPUs: Stages·TP GPUs a pipeline, and Replicas
// such pipelines behind Router.
//
// Memory: each stage holds ⌈layers/Stages⌉ layers' weights and their KV
// cache, and the embedding and LM head (vLLM keeps them on the first and
// the last stage only, so this overstates a middle stage's weights by
// them); the KV pool is the stage's.
//
// Scheduler picks the micro-batching. BatchQueue ("" or "v1", vLLM v1's
// EngineCore.step_with_batch_queue, vllm-project/vllm@00080ee1
// vllm/v1/engine/core.py): one scheduler over the stage's whole KV pool,
// max_num_seqs and token budget, and up to Stages batches in flight.
// Whenever fewer are in flight and the scheduler finds work, it forms a
// batch and sends it into the pipeline without waiting for outputs;
// otherwise it waits for the oldest batch, applies its output and tries
// again. A request's scheduled tokens count as computed when its batch
// is formed, so a decoder in flight has nothing to schedule until its
// token returns, while a long prompt's next chunk goes into the next
// batch (vllm@b4622cf9 vllm/v1/core/sched/scheduler.py: num_new_tokens == 0 "when PP>1
// and we have already scheduled all prompt tokens"). A single request
// thus decodes one token per Stages stage times, and an isolated prompt
// of n chunks finishes in n+Stages−1 stage times. The batch queue does
// not model the prefix cache (a shared prefix under prefix caching
// aborts the run) or speculative decoding.
//
// VirtualEngines ("v0", vLLM v0's pipeline-parallel scheduler): Stages
// schedulers, each with its own waiting queue, max_num_seqs, token
// budget and 1/Stages of the KV pool, and each with one micro-batch in
// the pipeline at a time. A new request goes to the virtual engine
// holding the fewest requests (ties to the lowest index).
//
// Either way a micro-batch runs through the stages in order; each stage
// serves the micro-batches that reach it first come first served, one at
// a time, taking the step time of its layers (⌈layers/Stages⌉ of the
// model; with StepTime, StepTime/Stages: balanced stages); between stages
// the batch's activations (tokens × hidden × act_bytes, one rank's share
// under TP: hidden/TP) cross ActivationLink. With fewer batches in flight
// than stages the pipeline has bubbles: k balanced stages fed m
// micro-batches at once finish them in (m+k−1)/k of one whole-model step
// each, a throughput of k·m/(m+k−1) times the unpipelined engine's.
//
// Stats are the engine's counters (the virtual engines' merged as a
// Cluster's are), but busy_fraction, which is each stage's utilisation
// (every micro-batch passes every stage): the stage times summed over
// the run.
type Pipeline struct {
	Engine Config `json:"engine" yaml:"engine"`
	// Stages is the pipeline-parallel size k ≥ 1.
	Stages int `json:"pipeline_parallel_size" yaml:"pipeline_parallel_size"`
	// ActivationLink carries activations between consecutive stages; the
	// zero Link means topology.LinkByName("nvlink-h100") (stages in one node).
	ActivationLink topology.Link `json:"activation_link,omitzero" yaml:"activation_link,omitempty"`
	// Replicas is the number of whole pipelines (0 or 1: one), each its
	// own stages and virtual engines, behind Router ("" or
	// least-outstanding: the pipeline holding the fewest requests, ties
	// to the lowest index; round-robin); a request then goes to its
	// pipeline's least loaded virtual engine.
	Replicas int    `json:"replicas,omitempty" yaml:"replicas,omitempty"`
	Router   Router `json:"router,omitempty" yaml:"router,omitempty"`
	// Scheduler is BatchQueue ("" or "v1") or VirtualEngines ("v0").
	Scheduler PipelineScheduler `json:"pipeline_scheduler,omitempty" yaml:"pipeline_scheduler,omitempty"`
}

// virtual reports whether p runs v0's virtual engines.
func (p Pipeline) virtual() bool { return p.Scheduler == VirtualEngines }

// MaxPipelineReplicas is the most pipelines one Pipeline may have.
const MaxPipelineReplicas = 1024

// replicas returns Replicas, 0 read as 1.
func (p Pipeline) replicas() int { return max(p.Replicas, 1) }

// Validate checks Stages in [1, MaxPipelineStages], dp 1, the link, and
// the stage engine (Stage).
func (p Pipeline) Validate() error {
	_, _, err := p.resolve()
	return err
}

// GPUs returns Replicas × Stages × Engine.GPUs().
func (p Pipeline) GPUs() int { return p.replicas() * p.Stages * p.Engine.GPUs() }

// link returns the activation link, its default filled in.
func (p Pipeline) link() topology.Link {
	if p.ActivationLink == (topology.Link{}) {
		l, _ := topology.LinkByName("nvlink-h100")
		return l
	}
	return p.ActivationLink
}

// Stage returns one stage's engine: the model cut to ⌈layers/Stages⌉
// layers (with StepTime unchanged, divided at run time); under
// VirtualEngines its KV pool is split over the Stages virtual engines.
func (p Pipeline) Stage() (Config, error) {
	s, _, err := p.resolve()
	return s, err
}

func (p Pipeline) resolve() (Config, *resolved, error) {
	switch {
	case p.Stages < 1 || p.Stages > MaxPipelineStages:
		return Config{}, nil, fieldErr("pipeline_parallel_size", p.Stages, "must be in [1, %d]", MaxPipelineStages)
	case p.Engine.Deployment.DP > 1:
		return Config{}, nil, fieldErr("pipeline_parallel_size", p.Stages, "with deployment dp %d is not modelled: use dp 1", p.Engine.Deployment.DP)
	case p.Replicas < 0 || p.Replicas > MaxPipelineReplicas:
		return Config{}, nil, fieldErr("pipeline_replicas", p.Replicas, "must be in [0, %d]", MaxPipelineReplicas)
	case p.Router != "" && p.Router != LeastOutstanding && p.Router != RoundRobin:
		return Config{}, nil, fieldErr("pipeline_router", p.Router, "must be %q or %q", LeastOutstanding, RoundRobin)
	case p.Scheduler != "" && p.Scheduler != BatchQueue && p.Scheduler != VirtualEngines:
		return Config{}, nil, fieldErr("pipeline_scheduler", p.Scheduler, "must be %q (vLLM v1's batch queue) or %q (v0's virtual engines)", BatchQueue, VirtualEngines)
	case !p.virtual() && p.Engine.Speculative != nil:
		return Config{}, nil, fieldErr("pipeline_scheduler", BatchQueue, "with speculative decoding is not modelled: drop speculative_config or use pipeline_scheduler %q", VirtualEngines)
	case !p.virtual() && p.Stages > 1 && !p.Engine.APIServer.IsZero():
		return Config{}, nil, fieldErr("api_server", nil, "is not modelled with pipeline_parallel_size %d and the v1 batch queue: drop api_server or use pipeline_scheduler %q", p.Stages, VirtualEngines)
	case p.Engine.KVOffload != nil && p.Stages > 1:
		return Config{}, nil, fieldErr("kv_offload", p.Engine.KVOffload.Size, "with pipeline_parallel_size %d is not modelled: the offload store serves the prefix cache, which the v1 batch queue does not model, and vLLM's offloading connectors are v1-only, so v0's virtual engines never had one; use pipeline_parallel_size 1", p.Stages)
	}
	if err := p.link().Validate(); err != nil {
		return Config{}, nil, errmark.With(ErrInvalid, fielderr.In("activation_link", err))
	}
	c := p.Engine
	if c.StepTime == nil {
		m := c.Deployment.Model
		if p.Stages > m.Layers {
			return Config{}, nil, fieldErr("pipeline_parallel_size", p.Stages, "exceeds the model's %d layers", m.Layers)
		}
		m.Layers = (m.Layers + p.Stages - 1) / p.Stages
		if m.DenseLayers > m.Layers {
			m.DenseLayers = m.Layers
		}
		c.Deployment.Model = m
	}
	whole, err := c.resolve()
	if err != nil || !p.virtual() {
		return c, whole, err // the batch queue's one scheduler has the whole pool
	}
	// Each virtual engine gets its share of the stage's pool.
	c.KVBlocks = whole.pool.Blocks / p.Stages
	if c.KVBlocks < 1 {
		return Config{}, nil, invalidf("the stage's KV pool of %d blocks split over %d virtual engines leaves none", whole.pool.Blocks, p.Stages)
	}
	r, err := c.resolve()
	if err != nil {
		return Config{}, nil, err
	}
	return c, r, nil
}

// NewServer builds the virtual engines and the stages for one run.
func (p Pipeline) NewServer(env *sim.Env) (sim.Server, error) {
	_, r, err := p.resolve()
	if err != nil {
		return nil, err
	}
	actPerToken := 0.0
	if m := p.Engine.Deployment.Model; m.Hidden > 0 && p.Engine.Deployment.TP > 0 {
		act := m.ActBytes
		if act == 0 {
			act = 2
		}
		actPerToken = float64(m.Hidden) / float64(p.Engine.Deployment.TP) * act
	}
	newStages := func() *stages {
		return &stages{free: make([]float64, p.Stages), link: p.link(), split: p.Engine.StepTime != nil, actPerToken: actPerToken}
	}
	if !p.virtual() {
		qp := &queuedPipeline{cfg: p, queues: make([]*batchQueue, p.replicas())}
		for j := range qp.queues {
			name := "pipeline"
			if p.replicas() > 1 {
				name += strconv.Itoa(j)
			}
			qp.queues[j] = newBatchQueue(r, env, newStages(), name)
		}
		return qp, nil
	}
	pl := &pipeline{cfg: p, engines: make([]*engine, p.replicas()*p.Stages), groups: make([]vgroup, p.replicas())}
	for j := range pl.groups {
		st := newStages()
		for i := range p.Stages {
			name := "virtual_engine" + strconv.Itoa(i)
			if p.replicas() > 1 {
				name = "pipeline" + strconv.Itoa(j) + "_" + name
			}
			e := newEngine(r, env, name)
			e.pipe = st
			pl.engines[j*p.Stages+i] = e
		}
		pl.groups[j] = vgroup(pl.engines[j*p.Stages : (j+1)*p.Stages])
	}
	return pl, nil
}

// vgroup is one pipeline's virtual engines.
type vgroup []*engine

// outstanding is the requests the pipeline holds.
func (g vgroup) outstanding() int {
	n := 0
	for _, e := range g {
		n += e.outstanding()
	}
	return n
}

// stages are the pipeline's stages: when each is next free, and the link
// between them.
type stages struct {
	free        []float64 // seconds
	link        topology.Link
	actPerToken float64 // activation bytes per token per rank
	split       bool    // StepTime gives the whole model's time: divide it
}

// through sends a micro-batch of batch b, whose one-stage cost is c,
// into the pipeline at now and returns when it leaves the last stage,
// less now. With split, c.Time is divided by the stage count first.
func (s *stages) through(now float64, b *cost.Batch, c *cost.StepCost) float64 {
	k := len(s.free)
	if s.split {
		c.Time /= float64(k)
	}
	if !(c.Time > 0) || math.IsInf(c.Time, 1) {
		return c.Time // record aborts the run
	}
	hop := s.link.Time(float64(b.Tokens()) * s.actPerToken)
	t := now
	for i := range s.free {
		if i > 0 {
			t += hop
		}
		t = max(t, s.free[i]) + c.Time
		s.free[i] = t
	}
	return t - now
}

type pipeline struct {
	cfg     Pipeline
	engines []*engine // all pipelines' virtual engines, pipeline-major
	groups  []vgroup
	next    int // round-robin position over the pipelines
}

// Arrive picks r's pipeline by the router, then sends r to that
// pipeline's virtual engine holding the fewest requests.
func (p *pipeline) Arrive(r *metrics.Request) {
	g := p.groups[0]
	if len(p.groups) > 1 {
		router := p.cfg.Router
		if router == "" {
			router = LeastOutstanding
		}
		g = p.groups[pick(router, &p.next, p.groups)]
	}
	next := 0
	g[pick(LeastOutstanding, &next, g)].Arrive(r)
}

// GPUs reports Replicas × Stages × TP (sim.GPUCounter).
func (p *pipeline) GPUs() int { return p.cfg.GPUs() }

// Series returns every virtual engine's counters over time.
func (p *pipeline) Series() []*metrics.Series { return seriesOf(p.engines) }

// Stats reports the virtual engines' counters merged, then the stage
// count. busy_fraction is a stage's utilisation: every micro-batch of
// a pipeline's virtual engines passes each of its stages, so it is the
// virtual engines' busy times summed over the run's duration (not their
// mean), over the pipelines.
func (p *pipeline) Stats() []metrics.Stat {
	out := mergedStats(p.engines, "virtual engines")
	busy := 0.0
	for _, e := range p.engines {
		busy += e.stats.busy
	}
	for i := range out {
		if out[i].Name == "busy_fraction" {
			if end := p.engines[0].env.Now(); end > 0 {
				out[i].Value = busy / end / float64(len(p.groups))
			}
		}
	}
	return append(out, metrics.Stat{Name: "pipeline_parallel_size", Value: float64(p.cfg.Stages)})
}
