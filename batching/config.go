package batching

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/specdecode"
)

// ErrInvalid is matched (errors.Is) by every configuration error of this
// package, including the deployment's errors from the cost package. An
// error about one field is a *fielderr.Error whose Field is the field's
// name in this package's schema (its yaml tag: "max_num_seqs";
// "deployment.tp" and the like for the deployment's, "deployment" when
// the cost package's error names no one field):
//
//	max_num_seqs: 0 must be >= 1
//	deployment.tp: 8 must divide heads 28 of model "qwen2.5-7b"
var ErrInvalid = errors.New("batching: invalid config")

// configError is an ErrInvalid error whose message is err's.
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }

// Unwrap returns ErrInvalid and the cause, so that both match errors.Is.
func (e *configError) Unwrap() []error { return []error{ErrInvalid, e.err} }

// invalidf returns an ErrInvalid error that reads "batching: " + the
// formatted message.
func invalidf(format string, args ...any) error {
	return &configError{fmt.Errorf("batching: "+format, args...)}
}

// fieldErr returns an ErrInvalid *fielderr.Error rejecting field's value;
// limit is formatted with args.
func fieldErr(field string, value any, limit string, args ...any) error {
	return errmark.With(ErrInvalid, fielderr.New(field, value, limit, args...))
}

// poolShort marks a field error about a KV pool too small for the field's
// value: ErrInvalid and cost.ErrDoesNotFit (the engine does not fit the
// memory it has).
func poolShort(fe *fielderr.Error) error {
	return errmark.With(ErrInvalid, errmark.With(cost.ErrDoesNotFit, fe))
}

// deploymentProbes are the deployment fields deploymentErr asks about, in
// order, each with the reset to its default (none).
var deploymentProbes = []struct {
	field string
	set   func(*cost.Deployment) bool // resets the field; false when it was unset
}{
	{"deployment.ep", func(d *cost.Deployment) bool { was := d.EP; d.EP = 0; return was != 0 }},
	{"deployment.dp", func(d *cost.Deployment) bool { was := d.DP; d.DP, d.EP = 0, 0; return was != 0 }},
	{"deployment.kv_cache_memory", func(d *cost.Deployment) bool { was := d.KVCacheMemory; d.KVCacheMemory = 0; return was != 0 }},
}

// deploymentErr places the cost package's error about d under
// "deployment". A rejected field (Validate's *fielderr.Error, each problem
// of a join) keeps the cost package's name for it: "deployment.tp",
// "deployment.model.layers". An error that names no field (the engine
// does not fit its memory) goes to the first field whose reset to its
// default makes d fit with blocks of blockSize, found by asking the cost
// model again (never by reading the message); else to the deployment as a
// whole.
func deploymentErr(d cost.Deployment, blockSize int, err error) error {
	if fielderr.Of(err) != nil {
		return errmark.With(ErrInvalid, fielderr.In("deployment", err))
	}
	field := "deployment"
	for _, p := range deploymentProbes {
		r := d
		if !p.set(&r) {
			continue
		}
		if _, e := r.Memory(max(blockSize, 1)); e == nil {
			field = p.field
			break
		}
	}
	return errmark.With(ErrInvalid, fielderr.Wrap(field, err))
}

// vLLM's scheduler defaults on GPUs under 70 GiB and A100s, and its block
// size (ServeDefaults).
const (
	DefaultMaxNumSeqs          = 256
	DefaultMaxNumBatchedTokens = 2048 // with chunked prefill (vLLM v1 online serving)
	DefaultBlockSize           = 16
)

// Config is one vLLM-style engine replica: a cost.Deployment (model, GPU,
// tensor parallelism, all-reduce model, efficiency profile and memory
// settings) run by vLLM's scheduler with its knobs. Field names follow
// `vllm serve` (max_num_seqs, max_num_batched_tokens,
// enable_chunked_prefill, block_size; the deployment's
// gpu_memory_utilization and kv_cache_memory). Start from Defaults, which
// fills in vLLM's defaults; a zero scheduler knob is an error, not a
// default, so a config file cannot silently mean something else. Zero
// fields of the Deployment select the cost package's documented defaults.
//
// The scheduler profile is "vllm-v1": iteration-level scheduling where
// every step gives each running decode one token, continues the one
// partially prefilled prompt, then admits waiting requests first come first
// served within the token budget, max_num_seqs and free KV blocks; a prompt
// longer than the remaining budget is chunked across steps and mixed with
// decodes. With EnableChunkedPrefill false the profile is vLLM v0's
// prefill-first scheduler: a step either prefills whole prompts (decodes
// pause) or decodes.
type Config struct {
	// Deployment is what the engine runs on: its step times are
	// Deployment.Compile's and its KV pool is Deployment.Memory's (see the
	// cost package's catalog, cost.Model and cost.GPU). Its TP is the
	// replica's GPU count. Set Deployment.Comm to a measured all-reduce
	// table or Deployment.Profile to a fitted profile (package calibrate) to
	// use them in a simulation.
	Deployment cost.Deployment `json:"deployment" yaml:"deployment"`

	// MaxNumSeqs caps the running requests (Serve: 256, or 1024 on large
	// GPUs; see ServeDefaults).
	MaxNumSeqs int `json:"max_num_seqs" yaml:"max_num_seqs"`
	// MaxNumBatchedTokens is the per-step token budget (Serve: 2048, or
	// 8192 on large GPUs).
	// It must be ≥ MaxNumSeqs, as vLLM requires, so every running decode
	// gets its token each step.
	MaxNumBatchedTokens int `json:"max_num_batched_tokens" yaml:"max_num_batched_tokens"`
	// EnableChunkedPrefill splits long prompts across steps, mixed with
	// decodes (Defaults: true, as in vLLM v1). Off, a step either prefills
	// whole prompts or decodes, and a request must fit the token budget
	// whole (input+output−1 ≤ MaxNumBatchedTokens, as vLLM requires
	// max_num_batched_tokens ≥ max_model_len then).
	EnableChunkedPrefill bool `json:"enable_chunked_prefill" yaml:"enable_chunked_prefill"`
	// AsyncScheduling plans each step while the one before it runs, as
	// vLLM's --async-scheduling does (on by default from v0.14,
	// vllm-project/vllm#27614): the scheduler that forms step k+1 runs
	// when step k launches, so a request that reaches it while step k runs
	// is first scheduled in step k+2, one step later than without it (an
	// idle engine schedules an arrival at once). Defaults leaves it off.
	// It moves TTFT only; the CPU time it overlaps with the GPU's is not
	// modelled apart from the profile's step overhead.
	AsyncScheduling bool `json:"async_scheduling,omitempty" yaml:"async_scheduling,omitempty"`
	// BlockSize is the paged-KV block size in tokens (Defaults: 16).
	BlockSize int `json:"block_size" yaml:"block_size"`
	// EnablePrefixCaching keeps the KV blocks of finished (and preempted)
	// requests cached by a hash of their whole prefix, so a request whose
	// prompt starts with cached blocks skips their prefill (Defaults: true,
	// as vLLM's --enable-prefix-caching). See the package documentation.
	EnablePrefixCaching bool `json:"enable_prefix_caching" yaml:"enable_prefix_caching"`
	// WarmPrompts, with EnablePrefixCaching, are prompts the engine served
	// and finished before the run, in this order, as a benchmark's warm-up
	// leaves them: each prompt's content spans (sim.Env.Content's
	// identities; at most 2,000,000 prompts), whose full blocks start the
	// run cached and free, the last prompt's the most recently freed, as
	// far as the KV pool holds them (older ones are evicted first, as a run
	// would); with Deployment.DP > 1 every group's engine starts with all
	// of them. Go callers only (calibrate re-simulates genai-perf's warm-up
	// with it); it is not part of the configuration's JSON.
	WarmPrompts [][]metrics.Span `json:"-" yaml:"-"`
	// MaxModelLen, when > 0, rejects requests with input+output above it;
	// 0 means no limit. Defaults leaves it 0; vLLM, and servesim's scenarios
	// and CLI, default it to the model's context length
	// (Deployment.Model.MaxContext). The KV pool must hold it.
	MaxModelLen int `json:"max_model_len,omitempty" yaml:"max_model_len,omitempty"`
	// RequestOverhead is a fixed per-request latency before a request
	// reaches the scheduler (tokenisation, HTTP, IPC), seconds; it adds to
	// TTFT and E2E. The deployment's Profile.FrontendOverhead, when a
	// profile is set, adds to it.
	RequestOverhead float64 `json:"request_overhead,omitempty" yaml:"request_overhead,omitempty"`
	// DPRouter is how requests reach the attention data-parallel groups of
	// a deployment with Deployment.DP > 1: DPBalanced (also "") or
	// DPFirstGroup.
	DPRouter DPRouter `json:"dp_router,omitempty" yaml:"dp_router,omitempty"`

	// StepTime, when set, replaces the cost model: it returns the duration
	// of a step of the given shape in seconds (> 0). Use it for fitted or
	// measured step-time tables. MBU and MFU are then not reported.
	StepTime func(cost.Batch) float64 `json:"-" yaml:"-"`
	// KVBlocks, when > 0, sets the pool size in blocks directly (overriding
	// the deployment's memory settings); with StepTime it makes the engine
	// independent of the Deployment but for its TP, as tests and what-if
	// studies want.
	KVBlocks int `json:"kv_blocks,omitempty" yaml:"kv_blocks,omitempty"`
	// Speculative, when set, runs speculative decoding as vLLM's
	// --speculative-config does (docs/speculative.md): each decoding
	// request verifies 1 + k tokens a step and emits 1 + accepted. It
	// needs chunked prefill. With StepTime, StepTime prices the
	// whole step (the batch's SpecTokens say how many drafts it verifies).
	// Under attention data parallelism each group verifies its own
	// decoders and pays its own proposer passes; the groups still step
	// together.
	Speculative *specdecode.Config `json:"speculative_config,omitempty" yaml:"speculative_config,omitempty"`
	// KVOffload, when set, offloads KV blocks to CPU memory as vLLM's
	// --kv-offloading-size does (KVOffload, docs/kv-offload.md). It
	// needs EnablePrefixCaching and a deployment's model (its KV bytes).
	KVOffload *KVOffload `json:"kv_offload,omitempty" yaml:"kv_offload,omitempty"`
	// APIServer, when not zero, puts the frontend's one process in front
	// of the engine (APIServer): requests queue for it on the way in and
	// tokens on the way out.
	APIServer APIServer `json:"api_server,omitzero" yaml:"api_server,omitempty"`

	// stepwise, a test hook (export_test.go), ends every step of the
	// engines built from the configuration through the event queue and
	// the full scheduler: the reference the fast paths must match byte
	// for byte.
	stepwise bool
	// noSeries turns the engines' time series off (WithoutSeries).
	noSeries bool
}

// WithoutSeries returns c with the engines' time series off: their steps
// skip sampling the counters and a run reports no Result.Series. Every
// other result is the same. Runs judged or summarised without it (a
// capacity search's probes, a plan's replica counts, explore's bench
// points) take it through capacity.WithoutSeries; the series cost them
// about an eighth of their instructions.
func (c Config) WithoutSeries() sim.ServerConfig {
	c.noSeries = true
	return c
}

// maxWarmPrompts is the most prompts Config.WarmPrompts may hold (genai-perf
// warms up with 2 × its concurrency, and a closed loop has at most
// workload.MaxClients clients).
const maxWarmPrompts = 2 * 1_000_000

// validWarmPrompts checks WarmPrompts: they need prefix caching, and every
// span at least one token.
func (c Config) validWarmPrompts() error {
	if len(c.WarmPrompts) == 0 {
		return nil
	}
	if !c.EnablePrefixCaching {
		return fieldErr("warm_prompts", len(c.WarmPrompts), "prompts need enable_prefix_caching: without a prefix cache no block stays cached")
	}
	if len(c.WarmPrompts) > maxWarmPrompts {
		return fieldErr("warm_prompts", len(c.WarmPrompts), "prompts exceed the limit of %d", maxWarmPrompts)
	}
	for i, p := range c.WarmPrompts {
		for _, sp := range p {
			if sp.Tokens < 1 {
				return fieldErr(fmt.Sprintf("warm_prompts[%d].tokens", i), sp.Tokens, "must be >= 1")
			}
		}
	}
	return nil
}

// Pool describes a replica's paged KV cache.
type Pool struct {
	// Blocks is the number of KV blocks; Tokens = Blocks × BlockSize.
	Blocks, BlockSize, Tokens int
	// BytesPerToken is the KV bytes of one token on one GPU (0 for an
	// engine without a cost model: StepTime and KVBlocks set).
	BytesPerToken float64
}

// MaxDataParallel is the most attention data-parallel groups
// (Deployment.DP) a Config may have: each is simulated with its own
// scheduler and KV pool.
const MaxDataParallel = 1024

// Validate checks the configuration and names the first bad field.
func (c Config) Validate() error {
	_, err := c.resolve()
	return err
}

// resolved is a validated configuration with its derived constants.
type resolved struct {
	Config
	pool Pool
	step *cost.StepModel // nil when StepTime is set
	spec *specResolved   // nil without speculative decoding

	off *offloadResolved // nil without KV offloading (offload.go)

	overhead   float64 // RequestOverhead + the deployment's FrontendOverhead
	blockShift int     // log2 BlockSize when a power of two, else -1
}

func (c Config) resolve() (*resolved, error) {
	switch {
	case c.MaxNumSeqs < 1:
		return nil, fieldErr("max_num_seqs", c.MaxNumSeqs, "must be >= 1")
	case c.MaxNumBatchedTokens < 1:
		return nil, fieldErr("max_num_batched_tokens", c.MaxNumBatchedTokens, "must be >= 1")
	case c.MaxNumBatchedTokens < c.MaxNumSeqs:
		return nil, fieldErr("max_num_batched_tokens", c.MaxNumBatchedTokens, "must be >= max_num_seqs %d (each running request needs a token per step)", c.MaxNumSeqs)
	case c.BlockSize < 1:
		return nil, fieldErr("block_size", c.BlockSize, "must be >= 1")
	case c.KVBlocks < 0:
		return nil, fieldErr("kv_blocks", c.KVBlocks, "must be >= 0")
	case c.KVBlocks > MaxKVBlocks:
		return nil, fieldErr("kv_blocks", c.KVBlocks, "exceeds %d (MaxKVBlocks: 2^31-1 blocks, thousands of times any GPU's pool; the cache indexes blocks with 32-bit ids)", MaxKVBlocks)
	case c.MaxModelLen < 0:
		return nil, fieldErr("max_model_len", c.MaxModelLen, "must be >= 0")
	case !c.EnableChunkedPrefill && c.MaxModelLen > c.MaxNumBatchedTokens:
		return nil, fieldErr("max_num_batched_tokens", c.MaxNumBatchedTokens, "must be >= max_model_len %d when chunked prefill is off (a whole prompt must fit one step)", c.MaxModelLen)
	case !(c.RequestOverhead >= 0) || math.IsInf(c.RequestOverhead, 1):
		return nil, fieldErr("request_overhead", c.RequestOverhead, "must be a finite number of seconds >= 0")
	}
	if err := c.APIServer.validate(); err != nil {
		return nil, errmark.With(ErrInvalid, err)
	}
	switch {
	case c.DPRouter != "" && c.DPRouter != DPBalanced && c.DPRouter != DPFirstGroup:
		return nil, fieldErr("dp_router", string(c.DPRouter), "must be %q or %q", DPBalanced, DPFirstGroup)
	case c.Deployment.DP > MaxDataParallel:
		return nil, fieldErr("deployment.dp", c.Deployment.DP, "exceeds %d, the most data-parallel groups an engine simulates (each with its own scheduler and KV pool)", MaxDataParallel)
	case c.StepTime != nil && c.KVBlocks > 0 && c.Deployment.TP < 1:
		// The cost package checks TP below whenever it uses the deployment;
		// a model-free engine still counts its GPUs by it.
		return nil, fieldErr("deployment.tp", c.Deployment.TP, "must be >= 1")
	}
	r := &resolved{Config: c, pool: Pool{BlockSize: c.BlockSize, Blocks: c.KVBlocks},
		overhead: c.RequestOverhead + c.Deployment.FrontendOverhead(), blockShift: -1}
	if c.BlockSize&(c.BlockSize-1) == 0 {
		r.blockShift = bits.TrailingZeros(uint(c.BlockSize))
	}
	if c.StepTime == nil {
		sm, err := c.Deployment.Compile()
		if err != nil {
			return nil, deploymentErr(c.Deployment, c.BlockSize, err)
		}
		r.step = sm
		r.pool.BytesPerToken = c.Deployment.KVBytesPerTokenPerRank()
	}
	if c.KVBlocks == 0 {
		dep := c.Deployment
		if dep.StateSeqs == 0 {
			dep.StateSeqs = c.MaxNumSeqs // a linear-attention state for each sequence the engine may run
		}
		m, err := dep.Memory(c.BlockSize)
		if err != nil {
			return nil, deploymentErr(c.Deployment, c.BlockSize, err)
		}
		r.pool.Blocks, r.pool.BytesPerToken = m.KVBlocks, m.KVBytesPerToken
	}
	if c.Speculative != nil {
		if err := c.resolveSpec(r); err != nil {
			return nil, err
		}
	}
	if c.KVOffload != nil {
		if err := c.resolveOffload(r); err != nil {
			return nil, err
		}
	}
	if err := c.validWarmPrompts(); err != nil {
		return nil, err
	}
	if r.pool.Blocks > math.MaxInt/2/c.BlockSize {
		return nil, invalidf("the KV pool of %d blocks of %d tokens overflows a token count (at most %d tokens)", r.pool.Blocks, c.BlockSize, math.MaxInt/2)
	}
	r.pool.Tokens = r.pool.Blocks * c.BlockSize
	if r.pool.Tokens < c.MaxNumBatchedTokens {
		return nil, poolShort(fielderr.New("max_num_batched_tokens", c.MaxNumBatchedTokens, "exceeds the KV pool's %d tokens (%d blocks of %d; kv_cache_memory %v bytes, gpu_memory_utilization %v): the pool cannot hold one step's prompt tokens",
			r.pool.Tokens, r.pool.Blocks, c.BlockSize, c.Deployment.KVCacheMemory, c.Deployment.GPUMemoryUtilization))
	}
	if c.MaxModelLen > 0 && r.pool.Tokens < c.MaxModelLen {
		what := ""
		if m := c.Deployment.Model; c.MaxModelLen == m.MaxContext {
			what = fmt.Sprintf("(%s's context length, vLLM's default) ", m.Name)
		}
		fe := fielderr.New("max_model_len", c.MaxModelLen, "%sexceeds the KV pool's %d tokens: one request that long would not fit, and vLLM refuses to start", what, r.pool.Tokens)
		fe.Fix = fmt.Sprintf("lower it to <= %d or give the KV cache more memory", r.pool.Tokens)
		return nil, poolShort(fe)
	}
	return r, nil
}

// Pool returns the replica's KV pool (one data-parallel group's with
// Deployment.DP > 1), or the configuration's error.
func (c Config) Pool() (Pool, error) {
	r, err := c.resolve()
	if err != nil {
		return Pool{}, err
	}
	return r.pool, nil
}

// GPUs returns the replica's GPU count, Deployment.GPUs() (TP·DP).
func (c Config) GPUs() int { return c.Deployment.GPUs() }

// NewServer builds a fresh engine for one run; with Deployment.DP = D > 1,
// D engines, one per attention data-parallel group, that step together
// (see the package documentation).
func (c Config) NewServer(env *sim.Env) (sim.Server, error) {
	r, err := c.resolve()
	if err != nil {
		return nil, err
	}
	if c.Deployment.DP > 1 {
		return newDataParallel(c, r, env, ""), nil
	}
	return newEngine(r, env, ""), nil
}

// MaxKVBlocks is the largest KV pool, in blocks, an engine takes: 2^31-1
// (at 16 tokens a block, 34 billion tokens; an H200 holds some 10^7
// blocks of a small model). The prefix cache's entry ids are 32-bit.
const MaxKVBlocks = 1<<31 - 1
