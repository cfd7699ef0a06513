package cost

import (
	"errors"
)

// GPUSpec describes one accelerator as far as the cost model needs it:
// memory capacity and bandwidth, dense peak arithmetic per data type, and
// all-reduce parameters among GPUs of the same kind in one node.
type GPUSpec struct {
	// Name identifies the GPU in error messages and reports.
	Name string `json:"name" yaml:"name"`
	// MemoryBytes is the device memory capacity in bytes.
	MemoryBytes float64 `json:"memory_bytes" yaml:"memory_bytes"`
	// BandwidthBytesPerS is the peak device-memory bandwidth in bytes/s.
	BandwidthBytesPerS float64 `json:"bandwidth_bytes_per_s" yaml:"bandwidth_bytes_per_s"`
	// PeakFLOPS is the dense (no structured sparsity) tensor-core peak per
	// data type, in FLOP/s.
	PeakFLOPS PeakFLOPS `json:"peak_flops" yaml:"peak_flops"`
	// Interconnect describes the GPU-to-GPU link, for reports only.
	Interconnect string `json:"interconnect,omitempty" yaml:"interconnect,omitempty"`
	// AllReduce holds α–β parameters of NCCL all-reduces per rank count
	// inside one node; Deployment uses it, after VLLMAllReduce, unless given
	// a Comm model.
	AllReduce AlphaBetaTable `json:"all_reduce,omitempty" yaml:"all_reduce,omitempty"`
	// VLLMAllReduce describes vLLM's custom and symmetric-memory all-reduces
	// per rank count (docs/cost-model.md#vllms-all-reduce); a Deployment
	// times tensor-parallel all-reduces as vLLM dispatches them between
	// these and AllReduce. Empty means NCCL for every message: no
	// peer-to-peer, or no measurement.
	VLLMAllReduce vllmAllReduceTable `json:"vllm_all_reduce,omitempty" yaml:"vllm_all_reduce,omitempty"`
}

// PeakFLOPS lists dense peak throughput per operand type in FLOP/s; 0 means
// the GPU has no such mode (A100 has no FP8).
type PeakFLOPS struct {
	// FP32 is the non-tensor FP32 peak.
	FP32 float64 `json:"fp32,omitempty" yaml:"fp32,omitempty"`
	// BF16 is the BF16 tensor peak with FP32 accumulation.
	BF16 float64 `json:"bf16,omitempty" yaml:"bf16,omitempty"`
	// FP16 is the FP16 tensor peak with FP32 accumulation.
	FP16 float64 `json:"fp16,omitempty" yaml:"fp16,omitempty"`
	// FP8 is the FP8 tensor peak.
	FP8 float64 `json:"fp8,omitempty" yaml:"fp8,omitempty"`
	// INT8 is the INT8 tensor peak in OP/s.
	INT8 float64 `json:"int8,omitempty" yaml:"int8,omitempty"`
	// FP4 is the FP4 (NVFP4, MXFP4) tensor peak; Blackwell and later.
	FP4 float64 `json:"fp4,omitempty" yaml:"fp4,omitempty"`
	// INT4 is the INT4 tensor peak in OP/s (Ampere, Ada). Serving engines
	// run INT4 weights as W4A16 (Precision.peak), so it is informational.
	INT4 float64 `json:"int4,omitempty" yaml:"int4,omitempty"`
}

// ForBytes returns the peak for operands of bytesPerElement bytes: FP32 for
// 4 or more, BF16 (else FP16) for 2 to 4, FP8 (else INT8) for 1 to 2, and
// for sub-byte activations the FP8 (else INT8) peak. It returns 0 when the
// GPU has no matching mode.
func (p PeakFLOPS) ForBytes(bytesPerElement float64) float64 {
	switch {
	case bytesPerElement >= 4:
		return p.FP32
	case bytesPerElement >= 2:
		return firstPositive(p.BF16, p.FP16)
	default:
		return firstPositive(p.FP8, p.INT8)
	}
}

func firstPositive(vs ...float64) float64 {
	for _, v := range vs {
		if v > 0 {
			return v
		}
	}
	return 0
}

// Validate reports every problem with g, each an ErrInvalidSpec
// *fielderr.Error naming the field (its key in a GPU file), the value and
// the limit, joined with errors.Join in the order of the fields.
func (g GPUSpec) Validate() error {
	var errs []error
	bad := func(field string, value any, limit string) {
		errs = append(errs, invalidField(field, value, "%s", limit))
	}
	if !positiveFinite(g.MemoryBytes) {
		bad("memory_bytes", g.MemoryBytes, "must be a finite number > 0")
	}
	if !positiveFinite(g.BandwidthBytesPerS) {
		bad("bandwidth_bytes_per_s", g.BandwidthBytesPerS, "must be a finite number > 0")
	}
	peaks := []struct {
		name string
		v    float64
	}{
		{"fp32", g.PeakFLOPS.FP32}, {"bf16", g.PeakFLOPS.BF16}, {"fp16", g.PeakFLOPS.FP16},
		{"fp8", g.PeakFLOPS.FP8}, {"int8", g.PeakFLOPS.INT8}, {"fp4", g.PeakFLOPS.FP4}, {"int4", g.PeakFLOPS.INT4},
	}
	anyPeak := false
	for _, p := range peaks {
		if !nonNegativeFinite(p.v) {
			bad("peak_flops."+p.name, p.v, "must be a finite number >= 0")
		}
		anyPeak = anyPeak || p.v > 0
	}
	if !anyPeak {
		bad("peak_flops", nil, "needs a peak > 0 for at least one data type")
	}
	errs = append(errs, g.AllReduce.problems()...)
	errs = append(errs, g.VLLMAllReduce.problems()...)
	return errors.Join(errs...)
}
