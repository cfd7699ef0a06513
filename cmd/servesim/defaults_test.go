package main

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/vllmbench"
	"github.com/servesim/servesim/workload"
)

// engineKnobs are the engine settings "vLLM's defaults" decide, and the KV
// pool they give.
type engineKnobs struct {
	MaxNumSeqs, MaxNumBatchedTokens int
	GPUMemoryUtilization            float64
	ChunkedPrefill, PrefixCaching   bool
	BlockSize, PoolTokens           int
}

func knobs(t *testing.T, c batching.Config) engineKnobs {
	t.Helper()
	pool, err := c.Pool()
	require.NoError(t, err)
	return engineKnobs{c.MaxNumSeqs, c.MaxNumBatchedTokens, c.Deployment.GPUMemoryUtilization,
		c.EnableChunkedPrefill, c.EnablePrefixCaching, c.BlockSize, pool.Tokens}
}

// TestOneEngineDefault: bench, capacity, a scenario file and plan build the
// same engine for the same GPU and model when no engine flag is given:
// vllm serve's defaults (batching.Serve with VLLMCurrent), 1024 sequences
// and 8192 tokens a step on an H100, 256 and 2048 on an L40S
// (vllm/engine/arg_utils.py, get_batch_defaults), memory 0.92.
func TestOneEngineDefault(t *testing.T) {
	t.Parallel()
	e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	for gpuName, want := range map[string][2]int{"h100-sxm": {1024, 8192}, "l40s": {256, 2048}} {
		model, err := cost.Model("llama-3.1-8b")
		require.NoError(t, err)
		gpu, err := cost.GPU(gpuName)
		require.NoError(t, err)
		lib := batching.Serve(model, gpu, batching.VLLMCurrent)
		lib.MaxModelLen = model.MaxContext
		ref := knobs(t, lib)
		assert.Equal(t, want, [2]int{ref.MaxNumSeqs, ref.MaxNumBatchedTokens}, gpuName)
		assert.Equal(t, 0.92, ref.GPUMemoryUtilization)

		flags := []string{"--model", "llama-3.1-8b", "--gpu", gpuName, "--goodput", "ttft:2000", "tpot:100"}
		var bench vllmbench.Flags
		_, err = parseBenchStyle("bench", benchUsage, flags, e, &bench, nil)
		require.NoError(t, err)
		sc, err := bench.Scenario()
		require.NoError(t, err)
		benchEngine, err := sc.Engine()
		require.NoError(t, err)

		var capOpts vllmbench.Flags
		var c capacityOptions
		var own cliflag.Group
		pos, err := parseBenchStyle("capacity", capacityUsage, flags, e, &capOpts, func(fs *flag.FlagSet) cliflag.Group {
			own = c.define(fs)
			return own
		})
		require.NoError(t, err)
		sc, err = capOpts.FileScenario(pos, own)
		require.NoError(t, err)
		capEngine, err := sc.Engine()
		require.NoError(t, err)

		file, err := scenario.Parse([]byte("workload: {arrival: {rate: 5}}\nserver: {model: llama-3.1-8b, gpu: "+gpuName+"}\n"), "s.yaml")
		require.NoError(t, err)
		fileEngine, err := file.Engine()
		require.NoError(t, err)

		pl := plan.NewPlan(model)
		pl.MaxModelLen = model.MaxContext
		pl.Space = plan.Space{GPUs: []plan.GPUOption{{GPU: gpu}}, TP: []int{1}}
		pl.Objective = plan.Objective{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: workload.Fixed{Input: 1024, Output: 128}},
			Rate: 1, Criteria: capacity.DefaultCriteria(metrics.SLO{TTFT: 2, TPOT: 0.1}, 0.99)}
		cands, err := pl.Candidates()
		require.NoError(t, err)
		require.Len(t, cands, 1)
		planEngine := cands[0].Replica.(plan.Engine).Config

		for name, got := range map[string]batching.Config{"bench": benchEngine, "capacity": capEngine, "scenario": fileEngine, "plan": planEngine} {
			assert.Equal(t, ref, knobs(t, got), "%s on %s", name, gpuName)
		}
	}
}
