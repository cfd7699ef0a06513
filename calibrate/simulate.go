package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/jobs"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

// Simulator re-simulates measured points (Point) under an efficiency
// profile. Its zero value is ready to use: seed 0, the run sizes below,
// vLLM's scheduler defaults for the point's GPU, all CPUs, the cost
// catalog's models (set ModelDir for the others).
//
// A closed-loop point with a NumPrompts is re-simulated as its benchmark
// measured it: from an idle engine, every client sending its first request
// at once, NumPrompts requests in all, each one measured. That is how
// `vllm bench serve --max-concurrency` runs (a semaphore over requests
// created together), and how perf_analyzer (genai-perf) runs after its
// warm-up, which it waits out before the measured requests start
// (ConcurrencyManager::PerformWarmup). The burst at the start is part of
// what the benchmark averages: at 128 clients the first round's prefills
// queue behind one another for seconds (docs/fidelity.md#ttft-and-the-benchmarks-start).
// genai-perf's measured requests replay its dataset from the start, so
// the first ones repeat the warm-up's prompts (Point.WarmupRepeats): the
// engine starts with those cached (batching.Config.WarmPrompts).
// A closed-loop point without NumPrompts is re-simulated in steady state:
// WarmupRounds left out, then Rounds measured.
//
// Runs are deterministic: the same points, profile and Simulator give the
// same predictions at any parallelism.
type Simulator struct {
	// Rounds is how many measured requests each client of a closed-loop
	// point without NumPrompts sends after its warm-up (0: DefaultRounds);
	// WarmupRounds how many it sends first (0: DefaultWarmupRounds).
	Rounds, WarmupRounds int
	// OpenRequests is the request count of an open-loop point without a
	// NumPrompts (0: 1000, `vllm bench serve`'s default).
	OpenRequests int
	// ClientJitter is the mean of an exponential pause, in seconds,
	// between a closed-loop client's response and its next request (0:
	// none). A simulated closed loop with fixed lengths and no pause keeps
	// clients that finished together in lockstep forever; real clients
	// (HTTP, the benchmark's own bookkeeping) resend after a variable delay
	// that breaks such groups up.
	ClientJitter float64
	// Seed seeds every run.
	Seed uint64
	// Workers bounds the parallel runs (0: GOMAXPROCS).
	Workers int
	// ModelDir is a directory of Hugging Face config.json files in which
	// LoadModel finds each point's model (shared/data/model_configs lays
	// them out as <org>--<name>.json); "" reaches only the cost catalog's
	// dense models.
	ModelDir string
	// Adjust, when set, changes each point's engine after the defaults are
	// filled in: the deployment flags of `servesim bench` (max_num_seqs,
	// max_num_batched_tokens, gpu_memory_utilization, an all-reduce table).
	Adjust func(Point, *batching.Config) error
}

// The run sizes of a closed-loop point without NumPrompts: warm-up and
// measured requests per client.
const (
	DefaultRounds       = 8
	DefaultWarmupRounds = 2
)

// VLLMSchedulerDefaults returns vLLM's max_num_seqs and
// max_num_batched_tokens for `vllm serve` on gpu: 1024 and 8192 on GPUs
// with at least 70 GiB that are not A100s (H100, H200, B200, MI300X),
// else 256 and 2048 (vllm/engine/arg_utils.py, EngineArgs.get_batch_defaults,
// UsageContext.OPENAI_API_SERVER, vLLM v0.9 onward).
func VLLMSchedulerDefaults(gpu cost.GPUSpec) (maxNumSeqs, maxNumBatchedTokens int) {
	if gpu.MemoryBytes >= 70*cost.GiB && gpu.Name != "a100-80gb" {
		return 1024, 8192
	}
	return batching.DefaultMaxNumSeqs, batching.DefaultMaxNumBatchedTokens
}

// asyncByDefault reports whether vLLM version runs with asynchronous
// scheduling when not told otherwise: from 0.14 (vllm-project/vllm#27614;
// a nightly counts as the newest). An unrecorded version reports false.
func asyncByDefault(version string) bool {
	minor, ok := vllmMinor(version)
	return ok && minor >= 14
}

// Engine returns the engine a point ran on, under profile: the point's
// model (LoadModel from ModelDir) served in its precision (Served) with its
// KV cache in the point's KVCache precision when it has one, its GPU
// (cost.GPU) and TP, the point's scheduler limits or vLLM's defaults for
// the GPU, asynchronous scheduling where its vLLM version has it on by
// default (0.14 and later), and Simulator.Adjust's changes. It fails, matching ErrInvalid,
// for a point this package cannot model: an unknown model, precision or
// GPU, or a deployment that does not fit.
func (s Simulator) Engine(pt Point, profile cost.Profile) (batching.Config, error) {
	if pt.Engine != nil {
		c := *pt.Engine
		c.Deployment.Profile = &profile
		return s.adjusted(pt, c)
	}
	m, err := LoadModel(s.ModelDir, pt.Model)
	if err != nil {
		return batching.Config{}, fmt.Errorf("point %s: %w", pt.ID, err)
	}
	if m, err = Served(m, pt.Precision); err != nil {
		return batching.Config{}, fmt.Errorf("point %s: %w", pt.ID, err)
	}
	if pt.KVCache != "" {
		kv, err := cost.ParsePrecision(pt.KVCache)
		if err != nil {
			return batching.Config{}, fmt.Errorf("%w: point %s: kv cache: %w", ErrInvalid, pt.ID, err)
		}
		m = m.WithKVCache(kv)
	}
	g, err := cost.GPU(pt.GPU)
	if err != nil {
		return batching.Config{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
	}
	c := batching.Defaults(m, g)
	c.Deployment.TP, c.Deployment.DP, c.Deployment.EP = pt.TP, pt.DP, pt.EP
	c.DPRouter = pt.DPRouter
	c.Deployment.Profile = &profile
	c.MaxNumSeqs, c.MaxNumBatchedTokens = VLLMSchedulerDefaults(g)
	c.AsyncScheduling = asyncByDefault(pt.BackendVersion)
	if pt.MaxNumSeqs > 0 {
		c.MaxNumSeqs = pt.MaxNumSeqs
	}
	if pt.MaxNumBatchedTokens > 0 {
		c.MaxNumBatchedTokens = pt.MaxNumBatchedTokens
	}
	if pt.KVBlocks > 0 {
		c.KVBlocks = pt.KVBlocks
	}
	return s.adjusted(pt, c)
}

// adjusted applies s.Adjust to pt's engine c and validates it.
func (s Simulator) adjusted(pt Point, c batching.Config) (batching.Config, error) {
	if s.Adjust != nil {
		if err := s.Adjust(pt, &c); err != nil {
			return batching.Config{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
		}
	}
	if err := c.Validate(); err != nil {
		return batching.Config{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
	}
	return c, nil
}

// Config returns the run that re-simulates pt under profile: its engine
// (Engine); a replayed point's arrivals and lengths (Point.Arrivals); else
// its requests' lengths (Point.Lengths, in order) or fixed lengths Input
// and Output, and its load: Concurrency
// closed-loop clients (spread over the data-parallel groups when DP > 1)
// sending NumPrompts requests from an idle engine, all measured, or
// WarmupRounds then Rounds requests each when NumPrompts is 0 (see
// Simulator); or an open loop at Rate with its MaxConcurrency cap and
// NumPrompts requests, its gaps gamma of shape Burstiness (1, Poisson, when
// 0; all at once for a Rate of +Inf) and rescaled to end at n/Rate as vllm
// bench serve sends them, or left independent (IndependentGaps) as aiperf
// and genai-perf draw them.
func (s Simulator) Config(pt Point, profile cost.Profile) (sim.Config, error) {
	if len(pt.Arrivals) > 0 {
		return s.replayConfig(pt, profile)
	}
	var lengths workload.Lengths = workload.Fixed{Input: pt.Input, Output: pt.Output}
	switch {
	case len(pt.Lengths) > 0:
		lengths = workload.Sequence{Pairs: pt.Lengths}
		if err := lengths.Validate(); err != nil {
			return sim.Config{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
		}
	case pt.Input < 1 || pt.Output < 1:
		return sim.Config{}, invalidf("point %s: input %d and output %d must be >= 1", pt.ID, pt.Input, pt.Output)
	}
	if pt.TP < 1 && pt.Engine == nil {
		return sim.Config{}, invalidf("point %s: tp %d must be >= 1", pt.ID, pt.TP)
	}
	if pt.WarmupRepeats < 0 || pt.DatasetEntries < 0 {
		return sim.Config{}, invalidf("point %s: warm-up repeats %d and dataset entries %d must be >= 0 (0: none)", pt.ID, pt.WarmupRepeats, pt.DatasetEntries)
	}
	eng, err := s.Engine(pt, profile)
	if err != nil {
		return sim.Config{}, err
	}
	if n, entries := promptCycle(pt, eng); n > 0 || entries > 0 {
		if n > 2*workload.MaxClients {
			return sim.Config{}, invalidf("point %s: %d warm-up repeats exceed %d (2 × workload.MaxClients, genai-perf's 2 × concurrency at the most clients a run takes)", pt.ID, n, 2*workload.MaxClients)
		}
		lengths = warmupRepeat{Fixed: workload.Fixed{Input: pt.Input, Output: pt.Output}, n: n, entries: entries}
		eng.WarmPrompts = make([][]metrics.Span, n)
		for i := range n {
			eng.WarmPrompts[i] = []metrics.Span{{ID: warmupPromptID(i), Tokens: pt.Input}}
		}
	}
	w := workload.Workload{Lengths: lengths}
	cfg := sim.Config{Server: eng, Seed: s.Seed, SummaryOnly: true}
	switch {
	case pt.Concurrency > 0:
		rounds, warm := s.Rounds, s.WarmupRounds
		if rounds <= 0 {
			rounds = DefaultRounds
		}
		if warm <= 0 {
			warm = DefaultWarmupRounds
		}
		w.Clients = pt.Concurrency
		if s.ClientJitter > 0 {
			w.Think = distribution.Exponential{Rate: 1 / s.ClientJitter}
		}
		cfg.Warmup = warm * w.Clients
		cfg.Requests = (warm + rounds) * w.Clients
		if pt.NumPrompts > 0 {
			cfg.Warmup, cfg.Requests = 0, pt.NumPrompts
		}
	case pt.Rate > 0:
		// vllm bench serve's arrivals: gamma gaps of shape --burstiness,
		// rescaled so that the last request is sent at n/rate (aiperf's
		// and genai-perf's are not rescaled).
		k := pt.Burstiness
		if k == 0 {
			k = 1
		}
		w.Arrivals = workload.Gamma{Rate: pt.Rate, Burstiness: k, Normalize: !pt.IndependentGaps}
		w.MaxConcurrency = pt.MaxConcurrency
		cfg.Requests = pt.NumPrompts
		if cfg.Requests <= 0 {
			cfg.Requests = max(s.OpenRequests, 0)
			if cfg.Requests == 0 {
				cfg.Requests = 1000
			}
		}
	default:
		return sim.Config{}, invalidf("point %s: neither concurrency nor a request rate is set", pt.ID)
	}
	cfg.Workload = w
	return cfg, nil
}

// promptCycle returns how many of pt's first requests the simulation gives
// the content of a warm-up prompt cached before the run
// (Point.WarmupRepeats) and over how many prompts the requests cycle
// (Point.DatasetEntries; 0: no cycle, and every request after the
// warm-up repeats sends a prompt of its own): for a closed loop of fixed lengths with a NumPrompts on
// an engine with prefix caching and one data-parallel group, the repeats
// at most NumPrompts and the dataset, and a cycle only when NumPrompts
// exceeds the dataset (so that a dataset at least as large as the run
// leaves the run as it was without one); 0, 0 otherwise.
func promptCycle(pt Point, eng batching.Config) (warm, entries int) {
	if pt.Concurrency <= 0 || pt.NumPrompts <= 0 || len(pt.Lengths) > 0 ||
		!eng.EnablePrefixCaching || eng.Deployment.DP > 1 {
		return 0, 0
	}
	warm = min(pt.WarmupRepeats, pt.NumPrompts) // >= 0: Config checked it
	if d := pt.DatasetEntries; d > 0 {
		warm = min(warm, d) // the warm-up sent entries 0, 1, ... too
		if pt.NumPrompts > d {
			entries = d
		}
	}
	return warm, entries
}

// warmupRepeat is fixed lengths whose first n requests repeat warm-up
// prompt i's whole prompt (warmupPromptID), the rest prompts of their own;
// or, with entries > 0, whose request i sends dataset entry i mod entries
// (the first n of them the warm-up's).
type warmupRepeat struct {
	workload.Fixed
	n, entries int
}

// SamplePrompt returns Fixed's lengths and request i's content: warm-up
// prompt i's for i < n, or entry i mod entries' when the requests cycle.
func (w warmupRepeat) SamplePrompt(r *rand.Rand, i int, buf []workload.Segment) (int, int, []workload.Segment) {
	in, out := w.Fixed.Sample(r, i)
	switch {
	case w.entries > 0:
		buf = append(buf, workload.Segment{ID: warmupPromptID(i % w.entries), Tokens: in})
	case i < w.n:
		buf = append(buf, workload.Segment{ID: warmupPromptID(i), Tokens: in})
	}
	return in, out, buf
}

// warmupPromptID is the content identity of a benchmark's warm-up prompt i
// (workload.ContentID in an ID space of this package's).
func warmupPromptID(i int) uint64 { return workload.ContentID(warmupSpace, uint64(i), 0) }

// warmupSpace is warmupPromptID's content ID space, far from workload's.
const warmupSpace uint64 = 0x63616c6962726174

// replayConfig returns the run of a replayed point: its arrivals at their
// times (workload.Replay) with their lengths in order (workload.Sequence),
// every request measured.
func (s Simulator) replayConfig(pt Point, profile cost.Profile) (sim.Config, error) {
	if len(pt.Lengths) != len(pt.Arrivals) || (pt.TP < 1 && pt.Engine == nil) {
		return sim.Config{}, invalidf("point %s: %d arrivals and %d lengths must match, and tp %d must be >= 1", pt.ID, len(pt.Arrivals), len(pt.Lengths), pt.TP)
	}
	eng, err := s.Engine(pt, profile)
	if err != nil {
		return sim.Config{}, err
	}
	times, pairs := pt.Arrivals, pt.Lengths
	w := workload.Workload{Arrivals: workload.Replay{Times: times}, Lengths: workload.Sequence{Pairs: pairs}}
	if err := w.Validate(); err != nil {
		return sim.Config{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
	}
	return sim.Config{Server: eng, Seed: s.Seed, SummaryOnly: true, Workload: w, Requests: len(times)}, nil
}

// groupShare returns the clients (or requests) of n that one of dp
// data-parallel groups serves when they are spread evenly.
func groupShare(n, dp int) int {
	if dp <= 1 {
		return n
	}
	return (n + dp - 1) / dp
}

// Predict re-simulates every point under profile and returns its
// predicted metrics, in the points' order.
func (s Simulator) Predict(points []Point, profile cost.Profile) ([]Metrics, error) {
	if err := profile.Validate(); err != nil {
		return nil, err
	}
	if err := checkWork(points); err != nil {
		return nil, err
	}
	out := make([]Metrics, len(points))
	err := jobs.Each(len(points), jobs.All, s.Workers, func(k, _ int) error {
		cfg, err := s.Config(points[k], profile)
		if err != nil {
			return err
		}
		res, err := sim.Run(cfg)
		if err != nil {
			return fmt.Errorf("point %s: %w", points[k].ID, err)
		}
		out[k] = Metrics{TTFT: res.TTFT().Mean(), TPOT: res.TPOT().Mean(), ITL: res.ITL().Mean(),
			E2E: res.E2E().Mean(), OutputThroughput: res.OutputThroughput}
		for _, v := range []float64{out[k].TTFT, out[k].E2E} {
			if !(v > 0) || math.IsInf(v, 0) {
				if eng, err := s.Engine(points[k], profile); err == nil {
					if why := noneCompletedReason(eng, cfg.Workload.Lengths); why != "" {
						return fmt.Errorf("point %s: the run completed no request (0 of %d): %s", points[k].ID, res.Measured, why)
					}
				}
				return fmt.Errorf("point %s: the run completed no request (%d of %d)", points[k].ID, res.Completed, res.Measured)
			}
		}
		return nil
	})
	return out, err
}

// Modelable splits points into those the package can simulate and the
// others, each with the reason.
func (s Simulator) Modelable(points []Point, profile cost.Profile) (ok []Point, skipped []Skipped) {
	for _, p := range points {
		if _, err := s.Config(p, profile); err != nil {
			skipped = append(skipped, Skipped{Point: p, Reason: err})
			continue
		}
		ok = append(ok, p)
	}
	return ok, skipped
}

// Skipped is a point that cannot be simulated, and why.
type Skipped struct {
	Point  Point
	Reason error
}
