package batching

import (
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
)

// ErrInvalid is matched (errors.Is) by every configuration error of this
// package, including the deployment's errors from the cost package, which
// keep their own words: errors read as one sentence that names the field
// and its value, such as
//
//	batching: max_num_seqs 0 must be >= 1
//	cost: model "qwen2.5-7b": tp 8 must divide heads 28
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

// vLLM's engine defaults, as Defaults sets them.
const (
	DefaultMaxNumSeqs           = 256
	DefaultMaxNumBatchedTokens  = 2048 // with chunked prefill (vLLM v1 online serving)
	DefaultBlockSize            = 16
	DefaultGPUMemoryUtilization = 0.9
)

// Config is one vLLM-style engine replica: a model on TensorParallelSize
// GPUs with vLLM's scheduler knobs. Field names follow `vllm serve`
// (max_num_seqs, max_num_batched_tokens, enable_chunked_prefill,
// block_size, gpu_memory_utilization, kv_cache_memory). Start from
// Defaults, which fills in vLLM's defaults; a zero field is an error, not a
// default, so a config file cannot silently mean something else.
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
	// Model and GPU describe the served model and the accelerator; see the
	// cost package's catalog (cost.Model, cost.GPU).
	Model cost.ModelSpec `json:"model" yaml:"model"`
	GPU   cost.GPUSpec   `json:"gpu" yaml:"gpu"`
	// TensorParallelSize is the TP degree p ≥ 1.
	TensorParallelSize int `json:"tensor_parallel_size" yaml:"tensor_parallel_size"`
	// Efficiency turns roofline floors into step times (Defaults:
	// cost.DefaultEfficiency(); the zero value is the ideal floor).
	Efficiency cost.Efficiency `json:"efficiency" yaml:"efficiency"`
	// RuntimeReserveBytes is per-rank memory for activations and the
	// runtime (0 means cost.DefaultRuntimeReserveBytes).
	RuntimeReserveBytes float64 `json:"runtime_reserve_bytes,omitempty" yaml:"runtime_reserve_bytes,omitempty"`

	// MaxNumSeqs caps the running requests (Defaults: 256).
	MaxNumSeqs int `json:"max_num_seqs" yaml:"max_num_seqs"`
	// MaxNumBatchedTokens is the per-step token budget (Defaults: 2048).
	// It must be ≥ MaxNumSeqs, as vLLM requires, so every running decode
	// gets its token each step.
	MaxNumBatchedTokens int `json:"max_num_batched_tokens" yaml:"max_num_batched_tokens"`
	// EnableChunkedPrefill splits long prompts across steps, mixed with
	// decodes (Defaults: true, as in vLLM v1). Off, a step either prefills
	// whole prompts or decodes, and a request must fit the token budget
	// whole (input+output−1 ≤ MaxNumBatchedTokens, as vLLM requires
	// max_num_batched_tokens ≥ max_model_len then).
	EnableChunkedPrefill bool `json:"enable_chunked_prefill" yaml:"enable_chunked_prefill"`
	// BlockSize is the paged-KV block size in tokens (Defaults: 16).
	BlockSize int `json:"block_size" yaml:"block_size"`
	// GPUMemoryUtilization is the fraction of each GPU's memory the engine
	// may use (Defaults: 0.9); the KV pool is what weights and the runtime
	// reserve leave of it. Ignored when KVCacheMemory or KVBlocks is set.
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization" yaml:"gpu_memory_utilization"`
	// KVCacheMemory, when > 0, sets the KV pool per GPU in bytes directly
	// (vLLM's --kv-cache-memory), overriding GPUMemoryUtilization.
	KVCacheMemory float64 `json:"kv_cache_memory,omitempty" yaml:"kv_cache_memory,omitempty"`
	// MaxModelLen, when > 0, rejects requests with input+output above it.
	MaxModelLen int `json:"max_model_len,omitempty" yaml:"max_model_len,omitempty"`
	// RequestOverhead is a fixed per-request latency before a request
	// reaches the scheduler (tokenisation, HTTP, IPC), seconds; it adds to
	// TTFT and E2E.
	RequestOverhead float64 `json:"request_overhead,omitempty" yaml:"request_overhead,omitempty"`

	// StepTime, when set, replaces the cost model: it returns the duration
	// of a step of the given shape in seconds (> 0). Use it for fitted or
	// measured step-time tables. MBU and MFU are then not reported.
	StepTime func(cost.Batch) float64 `json:"-" yaml:"-"`
	// KVBlocks, when > 0, sets the pool size in blocks directly (overriding
	// both memory settings); with StepTime it makes the engine independent
	// of Model and GPU memory, as tests and what-if studies want.
	KVBlocks int `json:"kv_blocks,omitempty" yaml:"kv_blocks,omitempty"`
}

// Defaults returns the engine vLLM would start for model on one gpu:
// TP 1, max_num_seqs 256, max_num_batched_tokens 2048, chunked prefill on,
// block size 16, gpu_memory_utilization 0.9, and the cost package's
// default efficiencies.
func Defaults(model cost.ModelSpec, gpu cost.GPUSpec) Config {
	return Config{
		Model: model, GPU: gpu,
		TensorParallelSize:   1,
		Efficiency:           cost.DefaultEfficiency(),
		MaxNumSeqs:           DefaultMaxNumSeqs,
		MaxNumBatchedTokens:  DefaultMaxNumBatchedTokens,
		EnableChunkedPrefill: true,
		BlockSize:            DefaultBlockSize,
		GPUMemoryUtilization: DefaultGPUMemoryUtilization,
	}
}

// Deployment returns the cost model's view of the replica.
func (c Config) Deployment() cost.Deployment {
	return cost.Deployment{Model: c.Model, GPU: c.GPU, TP: c.TensorParallelSize, Eff: c.Efficiency, RuntimeReserveBytes: c.RuntimeReserveBytes}
}

// Pool describes a replica's paged KV cache.
type Pool struct {
	// Blocks is the number of KV blocks; Tokens = Blocks × BlockSize.
	Blocks, BlockSize, Tokens int
	// BytesPerToken is the KV bytes of one token on one GPU (0 with KVBlocks).
	BytesPerToken float64
}

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
}

func (c Config) resolve() (*resolved, error) {
	switch {
	case c.TensorParallelSize < 1:
		return nil, invalidf("tensor_parallel_size %d must be >= 1", c.TensorParallelSize)
	case c.MaxNumSeqs < 1:
		return nil, invalidf("max_num_seqs %d must be >= 1", c.MaxNumSeqs)
	case c.MaxNumBatchedTokens < 1:
		return nil, invalidf("max_num_batched_tokens %d must be >= 1", c.MaxNumBatchedTokens)
	case c.MaxNumBatchedTokens < c.MaxNumSeqs:
		return nil, invalidf("max_num_batched_tokens %d must be >= max_num_seqs %d (each running request needs a token per step)", c.MaxNumBatchedTokens, c.MaxNumSeqs)
	case c.BlockSize < 1:
		return nil, invalidf("block_size %d must be >= 1", c.BlockSize)
	case c.KVCacheMemory == 0 && c.KVBlocks == 0 && !(c.GPUMemoryUtilization > 0 && c.GPUMemoryUtilization <= 1):
		return nil, invalidf("gpu_memory_utilization %v must be in (0, 1]", c.GPUMemoryUtilization)
	case !(c.KVCacheMemory >= 0) || math.IsInf(c.KVCacheMemory, 1):
		return nil, invalidf("kv_cache_memory %v must be a finite number of bytes >= 0", c.KVCacheMemory)
	case c.KVBlocks < 0:
		return nil, invalidf("kv_blocks %d must be >= 0", c.KVBlocks)
	case c.MaxModelLen < 0:
		return nil, invalidf("max_model_len %d must be >= 0", c.MaxModelLen)
	case !c.EnableChunkedPrefill && c.MaxModelLen > c.MaxNumBatchedTokens:
		return nil, invalidf("max_num_batched_tokens %d must be >= max_model_len %d when chunked prefill is off (a whole prompt must fit one step)", c.MaxNumBatchedTokens, c.MaxModelLen)
	case !(c.RequestOverhead >= 0) || math.IsInf(c.RequestOverhead, 1):
		return nil, invalidf("request_overhead %v must be a finite number of seconds >= 0", c.RequestOverhead)
	}
	r := &resolved{Config: c}
	modelFree := c.StepTime != nil && c.KVBlocks > 0
	if !modelFree {
		d := c.Deployment()
		if err := d.Validate(); err != nil {
			return nil, &configError{err}
		}
		r.pool.BytesPerToken = d.KVBytesPerTokenPerRank()
		if c.StepTime == nil {
			sm, err := d.Compile()
			if err != nil {
				return nil, &configError{err}
			}
			r.step = sm
		}
	}
	r.pool.BlockSize = c.BlockSize
	switch {
	case c.KVBlocks > 0:
		r.pool.Blocks = c.KVBlocks
	case c.KVCacheMemory > 0:
		r.pool.Blocks = int(c.KVCacheMemory / (float64(c.BlockSize) * r.pool.BytesPerToken))
	default:
		m, err := c.Deployment().Memory(c.GPUMemoryUtilization, c.BlockSize)
		if err != nil {
			return nil, &configError{err}
		}
		r.pool.Blocks = m.KVBlocks
	}
	r.pool.Tokens = r.pool.Blocks * c.BlockSize
	if r.pool.Tokens < c.MaxNumBatchedTokens {
		return nil, invalidf("the KV pool holds %d tokens (%d blocks of %d; kv_cache_memory %v bytes, gpu_memory_utilization %v), fewer than max_num_batched_tokens %d: it cannot hold one step's prompt tokens", r.pool.Tokens, r.pool.Blocks, c.BlockSize, c.KVCacheMemory, c.GPUMemoryUtilization, c.MaxNumBatchedTokens)
	}
	if c.MaxModelLen > 0 && r.pool.Tokens < c.MaxModelLen {
		return nil, invalidf("the KV pool holds %d tokens, fewer than max_model_len %d", r.pool.Tokens, c.MaxModelLen)
	}
	return r, nil
}

// Pool returns the replica's KV pool, or the configuration's error.
func (c Config) Pool() (Pool, error) {
	r, err := c.resolve()
	if err != nil {
		return Pool{}, err
	}
	return r.pool, nil
}

// GPUs returns the replica's GPU count, TensorParallelSize.
func (c Config) GPUs() int { return c.TensorParallelSize }

// NewServer builds a fresh engine for one run.
func (c Config) NewServer(env *sim.Env) (sim.Server, error) {
	r, err := c.resolve()
	if err != nil {
		return nil, err
	}
	return newEngine(r, env, ""), nil
}
