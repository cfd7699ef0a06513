package plan

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/sim"
)

// PPEngine is the Replica of a pipeline-parallel candidate
// (Space.PipelineParallel): each replica is one vLLM engine split into
// Stages stages of Engine.Config's TP (batching.Pipeline), n replicas
// behind the router.
type PPEngine struct {
	Engine Engine
	Stages int
}

// Servers returns n pipelines behind the router.
func (e PPEngine) Servers(n int) sim.ServerConfig {
	return batching.Pipeline{Engine: e.Engine.Config, Stages: e.Stages, Replicas: n, Router: e.Engine.Router}
}

// Screen judges one stage's engine (⌈layers/Stages⌉ layers, its virtual
// engine's share of the KV pool) by Engine.Screen: the shape rules, the
// memory fit, the latency floors (a stage's step is a lower bound on a
// pipeline's) and the roofline (every token passes every stage, so a
// pipeline serves no faster than one stage runs).
func (e PPEngine) Screen(d Demand) Screening {
	stage, err := batching.Pipeline{Engine: e.Engine.Config, Stages: e.Stages}.Stage()
	if err != nil {
		return Screening{Reason: DoesNotFit, Why: sentence(err)}
	}
	s := e.Engine
	s.Config = stage
	return s.Screen(d)
}

// validatePP checks the space's pipeline-parallel sizes.
func (p Plan) validatePP() error {
	for i, k := range p.Space.PipelineParallel {
		switch {
		case k < 1 || k > batching.MaxPipelineStages:
			return fmt.Errorf("%w: pipeline_parallel[%d] %d must be in [1, %d]", ErrInvalid, i, k, batching.MaxPipelineStages)
		case slices.Index(p.Space.PipelineParallel, k) != i:
			return fmt.Errorf("%w: pipeline_parallel[%d] %d repeats pipeline_parallel[%d]", ErrInvalid, i, k, slices.Index(p.Space.PipelineParallel, k))
		case k > 1 && p.Model.Experts > 0 && len(p.Space.DataParallel) > 0 && slices.Max(p.Space.DataParallel) > 1:
			return fmt.Errorf("%w: pipeline_parallel[%d] %d with data_parallel > 1 is not modelled: leave one of them out", ErrInvalid, i, k)
		}
	}
	return nil
}

// ppCount returns the pipeline-parallel candidates a space of colocated
// candidates makes: one per colocated point and size > 1.
func (s Space) ppCount(colocated int) int {
	n := 0
	for _, k := range s.PipelineParallel {
		if k > 1 {
			n++
		}
	}
	return n * colocated
}

// ppCandidates appends, for each size > 1 of Space.PipelineParallel and
// each colocated candidate of out (data parallelism 1), the same engine
// split into that many stages: TP·k GPUs a replica.
func (p Plan) ppCandidates(out []Candidate) []Candidate {
	colocated := len(out)
	for _, k := range p.Space.PipelineParallel {
		if k < 2 {
			continue
		}
		for _, c := range out[:colocated] {
			e, ok := c.Replica.(Engine)
			if !ok || c.Settings.DP > 1 {
				continue
			}
			c.Index = len(out)
			c.Settings.PP = k
			c.Name = c.Settings.String()
			c.GPUs *= k
			c.Replica = PPEngine{Engine: e, Stages: k}
			out = append(out, c)
		}
	}
	return out
}

// ppServe returns a pipeline-parallel winner's vllm serve line: the
// engine's, with --pipeline-parallel-size after its TP.
func ppServe(model string, e PPEngine, replicas int) string {
	line := ServeCommand(model, e.Engine, replicas)
	tp := "--tensor-parallel-size " + strconv.Itoa(e.Engine.Config.Deployment.TP)
	return strings.Replace(line, tp, tp+" --pipeline-parallel-size "+strconv.Itoa(e.Stages), 1)
}
