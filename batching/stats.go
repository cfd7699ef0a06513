package batching

import (
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim/metrics"
)

// stats accumulates an engine's counters over its steps. Averages over
// time weight each step by its duration; they cover busy time only.
type stats struct {
	steps                    int64
	busy                     float64 // seconds in steps
	tokens, prefill, decode  int64
	runningArea, waitingArea float64 // Σ count·dt
	kvArea, maxKV            float64 // Σ usage·dt, max usage
	maxRunning, maxWaiting   int
	preemptions, rejected    int
	bytes, flops, commTime   float64 // per rank, Σ over steps
	peakBandwidth, peakFLOPS float64 // per rank; 0 when StepTime replaces the cost model
	blocks, poolToks         int
	series                   *metrics.Series

	// Prefix caching: vLLM's queries and hits in tokens, apart for
	// requests resumed after a preemption; Σ cached-free fraction·dt.
	queries, hits                   int64
	preemptedQueries, preemptedHits int64
	cachedArea, maxCached           float64
}

// seriesNames are the counters of an engine's time series.
var seriesNames = []string{"running", "waiting", "kv_cache_usage", "tokens_per_step", "preemptions"}

func (s *stats) init(cfg *resolved, name string) {
	s.blocks, s.poolToks = cfg.pool.Blocks, cfg.pool.Tokens
	if !cfg.noSeries {
		s.series = metrics.NewSeries(name, 0.01, seriesNames...)
	}
	if cfg.step != nil {
		s.peakBandwidth, s.peakFLOPS = cfg.step.Peaks()
	}
}

// addStep records a step of batch b starting now; c is its cost (only Time
// set when StepTime replaces the cost model).
func (s *stats) addStep(e *engine, b *cost.Batch, c *cost.StepCost) {
	s.add(e.env.Now(), b, c, e.running, e.waitingCount(), e.usedBlocks)
	if e.cache != nil {
		cached := float64(e.cache.cachedFree) / float64(s.blocks)
		s.cachedArea += cached * c.Time
		s.maxCached = max(s.maxCached, cached)
	}
	if e.probe != nil { // fleet hook (replica.go)
		e.probe.Step(c.Time, s.stepUtil(c))
	}
}

// add records a step of batch b and cost c starting at now, with running
// and waiting requests and used KV blocks.
func (s *stats) add(now float64, b *cost.Batch, c *cost.StepCost, running, waiting, used int) {
	dt := c.Time
	s.steps++
	s.busy += dt
	s.tokens += int64(b.Tokens())
	s.prefill += int64(b.PrefillTokens)
	s.decode += int64(b.DecodeSeqs)
	s.runningArea += float64(running) * dt
	s.waitingArea += float64(waiting) * dt
	usage := float64(used) / float64(s.blocks)
	s.kvArea += usage * dt
	s.maxKV = max(s.maxKV, usage)
	s.maxRunning = max(s.maxRunning, running)
	s.maxWaiting = max(s.maxWaiting, waiting)
	if s.series != nil && s.series.Due(now) {
		s.series.Record(now, float64(running), float64(waiting), usage, float64(b.Tokens()), float64(s.preemptions))
	}
	s.bytes += c.Bytes
	s.flops += c.FLOPs
	s.commTime += c.CommTime
}

func (s *stats) list(end float64) []metrics.Stat {
	div := func(a, b float64) float64 {
		if b == 0 {
			return 0
		}
		return a / b
	}
	out := []metrics.Stat{
		{Name: "kv_cache_blocks", Value: float64(s.blocks)},
		{Name: "kv_cache_tokens", Value: float64(s.poolToks)},
		{Name: "preemptions", Value: float64(s.preemptions)},
		{Name: "engine_rejected", Value: float64(s.rejected)},
		{Name: "steps", Value: float64(s.steps)},
		{Name: "busy_fraction", Merge: metrics.Mean, Value: div(s.busy, end)},
		{Name: "mean_tokens_per_step", Merge: metrics.Mean, Value: div(float64(s.tokens), float64(s.steps))},
		{Name: "prefill_tokens", Value: float64(s.prefill)},
		{Name: "decode_tokens", Value: float64(s.decode)},
		{Name: "mean_running", Merge: metrics.Mean, Value: div(s.runningArea, s.busy)},
		{Name: "max_running", Merge: metrics.Max, Value: float64(s.maxRunning)},
		{Name: "mean_waiting", Merge: metrics.Mean, Value: div(s.waitingArea, s.busy)},
		{Name: "max_waiting", Merge: metrics.Max, Value: float64(s.maxWaiting)},
		{Name: "mean_kv_cache_usage", Merge: metrics.Mean, Value: div(s.kvArea, s.busy)},
		{Name: "max_kv_cache_usage", Merge: metrics.Max, Value: s.maxKV},
	}
	if s.peakBandwidth > 0 {
		out = append(out,
			metrics.Stat{Name: "mbu", Merge: metrics.Mean, Value: div(s.bytes, s.busy*s.peakBandwidth)},
			metrics.Stat{Name: "mfu", Merge: metrics.Mean, Value: div(s.flops, s.busy*s.peakFLOPS)},
			metrics.Stat{Name: "comm_fraction", Merge: metrics.Mean, Value: div(s.commTime, s.busy)},
		)
	}
	return out
}

// Stats reports the engine's counters (sim.StatsReporter). MBU and MFU are
// achieved bytes/s and FLOP/s over busy time divided by one GPU's peaks
// (per rank under tensor parallelism).
//
// With prefix caching the KV usage counts the blocks requests hold, as
// vLLM's kv_cache_usage does (a shared block once); cached blocks no
// request holds are free and reported apart (mean_kv_cache_cached), after
// vLLM's prefix-cache counters (prefixStats).
func (e *engine) Stats() []metrics.Stat {
	out := e.stats.list(e.env.Now())
	if e.cache != nil {
		out = append(out, e.prefixStats()...)
	}
	if e.sp != nil {
		out = append(out, e.specStatList()...)
	}
	if e.off != nil {
		out = append(out, e.off.stats(e)...)
	}
	return out
}

// Series returns the engine's counters over time (sim.SeriesReporter),
// sampled at step starts: running and waiting requests, KV-cache usage,
// tokens in the step, preemptions so far.
func (e *engine) Series() []*metrics.Series { return seriesOf([]*engine{e}) }

// GPUs reports the replica's GPU count (sim.GPUCounter).
func (e *engine) GPUs() int { return e.cfg.GPUs() }

// seriesOf returns the engines' counters over time, one series each.
func seriesOf(engines []*engine) []*metrics.Series {
	if len(engines) == 0 || engines[0].stats.series == nil {
		return nil // Config.WithoutSeries (or a fleet's replica): none
	}
	out := make([]*metrics.Series, len(engines))
	for i, e := range engines {
		out[i] = e.stats.series
	}
	return out
}

// mergedStats returns the engines' counters combined by
// metrics.MergeStats: counts and totals summed, averages and maxima over
// engines. what names the engines in the panic their lists cannot differ.
func mergedStats(engines []*engine, what string) []metrics.Stat {
	lists := make([][]metrics.Stat, len(engines))
	for i, e := range engines {
		lists[i] = e.Stats()
	}
	out, err := metrics.MergeStats(lists)
	if err != nil {
		panic("batching: " + what + " report different counters: " + err.Error())
	}
	return out
}
