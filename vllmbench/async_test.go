package vllmbench

import (
	"io"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

// simulate runs the scenario o builds and returns its run's config and
// result, failing t on any error.
func simulate(t *testing.T, o *Options) (sim.Config, *sim.Result) {
	t.Helper()
	sc, err := o.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	return runScenario(t, sc)
}

// runScenario runs sc and returns its run's config and result, failing t
// on any error.
func runScenario(t *testing.T, sc *scenario.Scenario) (sim.Config, *sim.Result) {
	t.Helper()
	cfg, err := sc.Config()
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, res
}

// TestAsyncSchedulingFlag: --async-scheduling reaches the engine, the last
// of it and --no-async-scheduling wins, and at 20 req/s on one H100 it
// raises mean TTFT (each arrival at a busy engine waits a step more) while
// TPOT stays within 1%.
func TestAsyncSchedulingFlag(t *testing.T) {
	t.Parallel()
	run := func(args ...string) (bool, *sim.Result) {
		t.Helper()
		fs, _, o := define("bench")
		base := []string{"--model", "meta-llama/Llama-3.1-8B", "--num-prompts", "300", "--request-rate", "20", "--seed", "1"}
		if err := fs.Parse(append(base, args...)); err != nil {
			t.Fatal(err)
		}
		if err := o.Resolve(fs, io.Discard); err != nil {
			t.Fatal(err)
		}
		cfg, res := simulate(t, &o.Options)
		return cfg.Server.(batching.Config).AsyncScheduling, res
	}
	off, sync := run()
	on, async := run("--async-scheduling")
	last, _ := run("--async-scheduling", "--no-async-scheduling")
	if off || !on || last {
		t.Fatalf("AsyncScheduling: default %v, --async-scheduling %v, then --no-async-scheduling %v; want false, true, false", off, on, last)
	}
	ts, ta := sync.TTFT().Mean(), async.TTFT().Mean()
	ps, pa := sync.TPOT().Mean(), async.TPOT().Mean()
	if !(ta > ts) || pa/ps-1 > 0.01 || ps/pa-1 > 0.01 {
		t.Errorf("mean TTFT %.4f s with, %.4f s without; mean TPOT %.5f against %.5f s", ta, ts, pa, ps)
	}
}
