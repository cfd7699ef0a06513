package batching

import (
	"strings"

	"github.com/servesim/servesim/cost"
)

// VLLM names a `vllm serve` release line whose engine defaults Serve
// returns. The lines differ only in gpu_memory_utilization; both set the
// scheduler's knobs by the GPU (ServeDefaults).
type VLLM int

const (
	// VLLMCurrent is today's `vllm serve`: gpu_memory_utilization 0.92
	// (vllm/config/cache.py@002f10e0; docs.vllm.ai/en/stable/cli/serve).
	// servesim bench, capacity, tp, run (scenarios) and plan use it.
	VLLMCurrent VLLM = iota
	// VLLM2025 is `vllm serve` from PR #12369 (January 2025) to late 2025:
	// gpu_memory_utilization 0.9 (cost.DefaultGPUMemoryUtilization).
	// Defaults returns it, so library results and calibrate's fits keep
	// the memory setting they were made with.
	VLLM2025
)

// GPUMemoryUtilization returns the release's default
// --gpu-memory-utilization, a fraction of each GPU's memory.
func (v VLLM) GPUMemoryUtilization() float64 {
	if v == VLLM2025 {
		return cost.DefaultGPUMemoryUtilization
	}
	return 0.92
}

// ServeDefaults returns `vllm serve`'s default max_num_seqs and
// max_num_batched_tokens (chunked prefill on) for gpu: 1024 and 8192 on a
// GPU of at least 70 GiB that is not an A100 (H100, H200, B200, MI300X),
// else 256 and 2048 (DefaultMaxNumSeqs, DefaultMaxNumBatchedTokens), as
// vLLM's EngineArgs sets them for the OpenAI API server
// (vllm/engine/arg_utils.py, get_batch_defaults, UsageContext.OPENAI_API_SERVER,
// since PR #12369). A GPU of unknown memory (the zero GPUSpec) gets the
// smaller pair.
func ServeDefaults(gpu cost.GPUSpec) (maxNumSeqs, maxNumBatchedTokens int) {
	if gpu.MemoryBytes >= 70*cost.GiB && !strings.Contains(strings.ToLower(gpu.Name), "a100") {
		return 1024, 8192
	}
	return DefaultMaxNumSeqs, DefaultMaxNumBatchedTokens
}

// Serve returns the engine `vllm serve` release v starts for model on one
// gpu: TP 1, the release's gpu_memory_utilization, max_num_seqs and
// max_num_batched_tokens by the GPU (ServeDefaults), chunked prefill on,
// block size 16, prefix caching on, max_model_len left 0 (callers set the
// model's context length, as vLLM does), the GPU's built-in efficiency
// profile (cost.DefaultProfile) and its α–β all-reduce table. It is the one
// answer to "vLLM's defaults": Defaults, the scenario schema, bench,
// capacity, tp and plan all start from it. After changing Deployment.GPU,
// take Serve again for the new GPU (its profile and scheduler knobs
// describe the GPU).
func Serve(model cost.ModelSpec, gpu cost.GPUSpec, v VLLM) Config {
	prof := cost.DefaultProfile(gpu)
	seqs, tokens := ServeDefaults(gpu)
	return Config{
		Deployment: cost.Deployment{Model: model, GPU: gpu, TP: 1, Eff: cost.DefaultEfficiency(), Profile: &prof,
			GPUMemoryUtilization: v.GPUMemoryUtilization()},
		MaxNumSeqs:           seqs,
		MaxNumBatchedTokens:  tokens,
		EnableChunkedPrefill: true,
		BlockSize:            DefaultBlockSize,
		EnablePrefixCaching:  true,
	}
}

// Defaults returns Serve(model, gpu, VLLM2025): the engine the vLLM of
// 2025 starts for model on one gpu. Use Serve with VLLMCurrent for
// today's memory default.
func Defaults(model cost.ModelSpec, gpu cost.GPUSpec) Config {
	return Serve(model, gpu, VLLM2025)
}
