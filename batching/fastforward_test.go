package batching

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/internal/simtest"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// runDump runs cfg with fast-forward on or off and returns everything the
// run reports, as bytes (simtest.Dump), and the steps fast-forwarded, in
// all and in decode runs.
func runDump(t *testing.T, cfg sim.Config, single bool) (dump []byte, ff, decodeRun int64) {
	var engines []*engine
	// Invariants are checked on a sample of the fast-forwarded runs' steps
	// (verify walks the running list); TestInvariants checks single
	// steps.
	every := int64(16)
	if single {
		every = 0
	}
	cfg.Server = checked{ServerConfig: cfg.Server, t: t, engines: &engines, every: every, single: single}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	dump, err = simtest.Dump(res)
	require.NoError(t, err)
	for _, e := range engines {
		ff += e.ffSteps
		decodeRun += e.ffDecode
	}
	return dump, ff, decodeRun
}

// TestFastForwardIsExact: every configuration gives byte-identical output
// with fast-forward on and off (every step's end an event), and
// fast-forward does happen in each, in decode runs where decodes can run
// uninterrupted.
func TestFastForwardIsExact(t *testing.T) {
	t.Parallel()
	llama := llamaH200(t)
	noCache := llama
	noCache.EnablePrefixCaching = false
	noChunk := llama
	noChunk.EnableChunkedPrefill = false
	qwen := qwen4090(t)
	tiny := qwen
	tiny.Deployment.KVCacheMemory = 0
	tiny.KVBlocks = 300 // 4800 tokens: preempts
	tiny.MaxNumBatchedTokens = 512
	tinyNoChunk := tiny
	tinyNoChunk.EnableChunkedPrefill = false
	tinyNoChunk.MaxNumBatchedTokens = 4096
	overhead := llama
	overhead.RequestOverhead = 0.004
	table := llama
	table.StepTime = func(b cost.Batch) float64 {
		return 0.004 + 1e-5*float64(b.Tokens()) + 2e-8*(b.DecodeContext+b.PrefillContext)
	}
	table.KVBlocks = 4000
	pairs := workload.Random{InputLen: 512, OutputLen: 128, RangeRatio: 0.5}
	long := workload.Random{InputLen: 300, OutputLen: 600, RangeRatio: 0.5}
	poisson := func(rate float64, l workload.Lengths) workload.Workload {
		return workload.Workload{Arrivals: workload.Poisson{Rate: rate}, Lengths: l}
	}
	closed := func(c int, l workload.Lengths) workload.Workload {
		return workload.Workload{Clients: c, Lengths: l}
	}
	fixed := workload.Fixed{Input: 128, Output: 512}
	slo := metrics.SLO{TTFT: 0.05}
	for _, tc := range []struct {
		name      string
		cfg       sim.Config
		decodeRun bool // runs of decode-only steps are expected
	}{
		{"open poisson summary", sim.Config{Workload: poisson(20, pairs), Server: llama, Requests: 2000, Warmup: 100, Seed: 1, SummaryOnly: true}, true},
		{"open poisson records", sim.Config{Workload: poisson(20, pairs), Server: llama, Requests: 1500, Warmup: 100, Seed: 1, TokenSteps: true}, true},
		{"open poisson no prefix caching", sim.Config{Workload: poisson(20, pairs), Server: noCache, Requests: 2000, Seed: 2, TokenSteps: true}, true},
		{"open poisson no chunked prefill", sim.Config{Workload: poisson(20, pairs), Server: noChunk, Requests: 2000, Seed: 3, TokenSteps: true}, true},
		{"open heavy load", sim.Config{Workload: poisson(60, pairs), Server: llama, Requests: 3000, Seed: 4, SummaryOnly: true}, true},
		{"closed C=1", sim.Config{Workload: closed(1, fixed), Server: llama, Requests: 8, Seed: 5, TokenSteps: true}, true},
		{"closed C=64", sim.Config{Workload: closed(64, fixed), Server: llama, Requests: 256, Seed: 6, TokenSteps: true}, true},
		{"closed C=512", sim.Config{Workload: closed(512, fixed), Server: llama, Requests: 1024, Seed: 7, TokenSteps: true}, true},
		{"closed C=512 summary", sim.Config{Workload: closed(512, long), Server: llama, Requests: 1536, Seed: 7, SummaryOnly: true}, true},
		{"closed C=64 no prefix caching", sim.Config{Workload: closed(64, long), Server: noCache, Requests: 500, Seed: 8}, true},
		{"closed C=64 no chunked prefill", sim.Config{Workload: closed(64, long), Server: noChunk, Requests: 500, Seed: 9, TokenSteps: true}, true},
		{"tiny pool preempts", sim.Config{Workload: closed(16, workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}), Server: tiny, Requests: 300, Warmup: 10, Seed: 10, TokenSteps: true}, true},
		{"tiny pool preempts no chunking", sim.Config{Workload: closed(16, workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}), Server: tinyNoChunk, Requests: 300, Seed: 11}, true},
		{"shared prefix tiny pool", sim.Config{Workload: closed(16, workload.SharedPrefix{Tokens: 700, Lengths: workload.Random{InputLen: 600, OutputLen: 400, RangeRatio: 0.5}}), Server: tiny, Requests: 150, Seed: 12, TokenSteps: true}, true},
		{"horizon open", sim.Config{Workload: poisson(20, pairs), Server: llama, Horizon: 30, Seed: 13, TokenSteps: true}, true},
		{"horizon closed summary", sim.Config{Workload: closed(64, long), Server: llama, Horizon: 7.3, Seed: 14, SummaryOnly: true}, true},
		{"horizon and requests", sim.Config{Workload: closed(32, long), Server: llama, Requests: 10_000, Horizon: 5, Seed: 15}, true},
		{"slo deadlines", sim.Config{Workload: poisson(20, pairs), Server: llama, Requests: 1000, Seed: 16, SLO: slo, StopAfterMisses: 1_000_000}, true},
		{"stop after misses", sim.Config{Workload: poisson(30, pairs), Server: llama, Requests: 20_000, Seed: 17, SLO: slo, StopAfterMisses: 50}, true},
		{"max in system", sim.Config{Workload: poisson(120, long), Server: llama, Horizon: 100, MaxInSystem: 2000, Seed: 18, SummaryOnly: true}, false},
		{"capped open loop", sim.Config{Workload: workload.Workload{Arrivals: workload.Gamma{Rate: 30, Burstiness: 0.3}, MaxConcurrency: 40, Lengths: long}, Server: llama, Requests: 1000, Seed: 19}, true},
		{"request overhead", sim.Config{Workload: poisson(20, pairs), Server: overhead, Requests: 1000, Seed: 20, TokenSteps: true}, true},
		{"step time table", sim.Config{Workload: closed(24, long), Server: table, Requests: 400, Seed: 21, TokenSteps: true}, true},
		{"sessions", sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 2}, Lengths: workload.Random{InputLen: 200, OutputLen: 150, RangeRatio: 0.8},
			Sessions: &workload.Sessions{Turns: distribution.Uniform{Min: 1, Max: 8}, Think: distribution.Exponential{Rate: 0.5}, SystemPrompt: 300}}, Server: llama, Requests: 400, Seed: 22, TokenSteps: true}, true},
		{"cluster least outstanding", sim.Config{Workload: poisson(30, pairs), Server: Cluster{Engine: llama, Replicas: 3, Router: LeastOutstanding}, Requests: 2000, Seed: 23, TokenSteps: true}, true},
		{"cluster prefix aware summary", sim.Config{Workload: poisson(30, workload.PrefixRepetition{PrefixLen: 900, SuffixLen: 200, NumPrefixes: 5, OutputLen: 100}), Server: Cluster{Engine: llama, Replicas: 2, Router: PrefixAware}, Requests: 2000, Seed: 24, SummaryOnly: true}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			want, ff0, _ := runDump(t, tc.cfg, true)
			got, ff, decodeRun := runDump(t, tc.cfg, false)
			require.Zero(t, ff0, "single-stepping fast-forwarded")
			require.Positive(t, ff, "no step was fast-forwarded")
			if tc.decodeRun {
				require.Positive(t, decodeRun, "no decode run was fast-forwarded")
			}
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("fast-forward changed the output at byte %d of %d:\n single: %s\n ff:     %s", i, len(want), clip(want, i), clip(got, i))
			}
			t.Logf("%d bytes equal; %d steps fast-forwarded, %d in decode runs", len(want), ff, decodeRun)
		})
	}
}

// TestEndStepDecodeRuns: among interleaved replicas, whose steps' ends
// are seldom the run's next event, step-end events do end as decode runs
// (endStep), and the run is byte-identical to single-stepping, which
// takes every step through the full scheduler.
func TestEndStepDecodeRuns(t *testing.T) {
	t.Parallel()
	llama := llamaH200(t)
	pairs := workload.Random{InputLen: 512, OutputLen: 256, RangeRatio: 0.5}
	for _, tc := range []struct {
		name string
		srv  sim.ServerConfig
	}{
		{"cluster of 4", Cluster{Engine: llama, Replicas: 4, Router: LeastOutstanding}},
		{"cluster of 8 round robin", Cluster{Engine: llama, Replicas: 8, Router: RoundRobin}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := sim.Config{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 60}, Lengths: pairs},
				Server: tc.srv, Requests: 3000, Seed: 31, SummaryOnly: true}
			var engines []*engine
			run := func(single bool) []byte {
				engines = engines[:0]
				c := cfg
				c.Server = checked{ServerConfig: cfg.Server, t: t, engines: &engines, single: single}
				res, err := sim.Run(c)
				require.NoError(t, err)
				dump, err := simtest.Dump(res)
				require.NoError(t, err)
				return dump
			}
			want := run(true)
			got := run(false)
			var ends int64
			for _, e := range engines {
				ends += e.endDecode
			}
			require.Positive(t, ends, "no step-end event ended as a decode run")
			require.True(t, bytes.Equal(got, want), "decode runs ended in endStep changed the output")
			t.Logf("%d step-end events ended as decode runs", ends)
		})
	}
}

// clip returns the bytes of b around offset i.
func clip(b []byte, i int) string {
	lo, hi := max(i-80, 0), min(i+80, len(b))
	return fmt.Sprintf("%q", b[lo:hi])
}
