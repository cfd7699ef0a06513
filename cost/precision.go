package cost

import (
	"fmt"
	"strings"
)

// Precision is a numeric format for stored weights, the KV cache or the
// operands of the matrix multiplications, as a serving engine uses it
// (docs/cost-model.md#precisions). The zero value is PrecisionUnset.
type Precision uint8

// Precision values. Bits per weight include the block scales a format
// stores beside the values (Bits).
const (
	// PrecisionUnset means "not given": a ModelSpec whose GEMM precision is
	// unset takes its GPU peak from ActBytes (PeakFLOPS.ForBytes).
	PrecisionUnset Precision = iota
	// BF16 is bfloat16, 16 bits.
	BF16
	// FP16 is IEEE half precision, 16 bits.
	FP16
	// FP8 is float8 E4M3 (W8A8 GEMMs on GPUs with FP8 tensor cores), 8 bits;
	// its per-tensor, per-channel or 128×128-block FP32 scales add under
	// 0.01 bit and are left out.
	FP8
	// INT8 is 8-bit integer weights (W8A8 INT8 GEMMs), 8 bits.
	INT8
	// FP4 is NVIDIA's NVFP4: E2M1 values with one FP8 E4M3 scale per 16
	// values, 4 + 8/16 = 4.5 bits.
	FP4
	// MXFP4 is the OCP microscaling format: E2M1 values with one E8M0 scale
	// per 32 values, 4 + 8/32 = 4.25 bits (gpt-oss experts). GEMMs run in
	// 16 bits (W4A16).
	MXFP4
	// INT4 is 4-bit integer weight-only quantization (AWQ, GPTQ) with groups
	// of 128 values, each with a 16-bit scale and a 4-bit zero point:
	// 4 + 16/128 + 4/128 = 4.15625 bits. GEMMs run in 16 bits (W4A16).
	INT4
	numPrecisions
)

var precisionNames = [numPrecisions]string{"", "bf16", "fp16", "fp8", "int8", "nvfp4", "mxfp4", "int4"}

// precisionBits is the storage bits per weight, block scales included.
var precisionBits = [numPrecisions]float64{0, 16, 16, 8, 8, 4.5, 4.25, 4.15625}

// String returns the lower-case name: "bf16", "fp16", "fp8", "int8",
// "nvfp4", "mxfp4", "int4", or "" for PrecisionUnset.
func (p Precision) String() string {
	if p < numPrecisions {
		return precisionNames[p]
	}
	return fmt.Sprintf("precision(%d)", uint8(p))
}

// valid reports whether p is PrecisionUnset or one of the named formats.
func (p Precision) valid() bool { return p < numPrecisions }

// bits returns the storage bits of one weight, block scales included
// (16, 16, 8, 8, 4.5, 4.25, 4.15625), or 0 for PrecisionUnset and unknown
// values.
func (p Precision) bits() float64 {
	if p < numPrecisions {
		return precisionBits[p]
	}
	return 0
}

// Bytes returns Bits()/8, the bytes of one stored weight.
func (p Precision) Bytes() float64 { return p.bits() / 8 }

// kvBytes returns the bytes of one KV-cache element stored in p, as vLLM's
// --kv-cache-dtype lays it out: 2 for BF16 and FP16, 1 for FP8 and INT8,
// 0.5625 for FP4 (vLLM's nvfp4 cache: packed E2M1 values and one FP8 scale
// per 16 elements, head_size/2 + head_size/16 bytes per head). It returns 0
// for the formats vLLM does not offer for the cache (MXFP4, INT4) and for
// PrecisionUnset.
func (p Precision) kvBytes() float64 {
	switch p {
	case BF16, FP16:
		return 2
	case FP8, INT8:
		return 1
	case FP4:
		return 0.5625
	default:
		return 0
	}
}

// peak returns the GPU's dense peak FLOP/s for GEMMs whose weights are
// stored in p, as a serving engine runs them:
//
//   - BF16, FP16: the 16-bit tensor peak (the other 16-bit format if the GPU
//     lists only one);
//   - FP8, INT8: the 8-bit peak (W8A8); on GPUs without it (A100 has no FP8)
//     the weights are dequantized and the 16-bit peak applies (W8A16);
//   - FP4 (NVFP4, W4A4: ModelOpt checkpoints quantize the activations
//     too): the FP4 peak on GPUs that have FP4 tensor cores (Blackwell),
//     else the 16-bit peak (weight-only kernels such as Marlin);
//   - MXFP4 (gpt-oss) and INT4 (AWQ, GPTQ): weight-only, the 16-bit peak.
//     vLLM's MXFP4 MoE backends (Mxfp4Backend: FlashInfer MXFP4×BF16 or
//     MXFP4×MXFP8, Triton, Marlin) run 16-bit or MXFP8 activations, never
//     FP4 ones.
//
// It returns 0 for PrecisionUnset, unknown values, and GPUs without a
// matching mode.
func (p Precision) peak(g PeakFLOPS) float64 {
	half := firstPositive(g.BF16, g.FP16)
	switch p {
	case BF16:
		return half
	case FP16:
		return firstPositive(g.FP16, g.BF16)
	case FP8:
		return firstPositive(g.FP8, half)
	case INT8:
		return firstPositive(g.INT8, half)
	case FP4:
		return firstPositive(g.FP4, half)
	case MXFP4, INT4:
		return half
	default:
		return 0
	}
}

// ParsePrecision reads a precision name, case-insensitively: the names of
// String and the common aliases "bfloat16", "float16", "half", "fp8_e4m3",
// "float8_e4m3fn", "fp4", "w4a16", "awq", "gptq", "w8a8". The error matches
// ErrInvalidSpec and lists the names.
func ParsePrecision(s string) (Precision, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "bf16", "bfloat16":
		return BF16, nil
	case "fp16", "float16", "half":
		return FP16, nil
	case "fp8", "fp8_e4m3", "float8_e4m3fn", "e4m3":
		return FP8, nil
	case "int8", "w8a8":
		return INT8, nil
	case "nvfp4", "fp4":
		return FP4, nil
	case "mxfp4":
		return MXFP4, nil
	case "int4", "w4a16", "awq", "gptq":
		return INT4, nil
	}
	return PrecisionUnset, invalidf("precision %q must be one of %s", s, strings.Join(precisionNames[1:], ", "))
}

// MarshalText writes String.
func (p Precision) MarshalText() ([]byte, error) {
	if !p.valid() {
		return nil, invalidf("precision %d is not a known format", uint8(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText reads a name accepted by ParsePrecision; "" is
// PrecisionUnset.
func (p *Precision) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*p = PrecisionUnset
		return nil
	}
	v, err := ParsePrecision(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// WithWeights returns m served with its linear-layer weights (attention,
// MLPs, all experts) stored in p, as vLLM's --quantization does: WeightBytes
// and ExpertWeightBytes become p.Bytes() and GEMMs run at p.Peak. The input
// embedding and the LM head keep their current width (EmbeddingBytes),
// since engines leave them unquantized. The KV cache is unchanged (see
// WithKVCache). An unknown p leaves WeightBytes 0, which Validate rejects.
func (m ModelSpec) WithWeights(p Precision) ModelSpec {
	m.EmbeddingBytes = m.embeddingBytes()
	m.WeightBytes = p.Bytes()
	m.ExpertWeightBytes = 0
	m.GEMM = p
	m.ExpertGEMM = PrecisionUnset
	return m
}

// Family returns the format p stands for when a benchmark names only a
// precision: BF16 for FP16 and the 16-bit formats, FP4 for MXFP4 and
// NVFP4, p otherwise.
func (p Precision) Family() Precision {
	switch p {
	case FP16:
		return BF16
	case MXFP4:
		return FP4
	}
	return p
}

// Stored returns the precision m's checkpoint is quantized to: its
// experts' ExpertGEMM when only they are quantized, else GEMM, else BF16.
func (m ModelSpec) Stored() Precision {
	switch {
	case m.ExpertGEMM != PrecisionUnset:
		return m.ExpertGEMM
	case m.GEMM != PrecisionUnset:
		return m.GEMM
	}
	return BF16
}

// Quantized returns m served in p as a checkpoint quantized to p serves
// it: a checkpoint of p's family already (Family of its GEMM, or of its
// experts' ExpertGEMM when only they are quantized) unchanged; a
// mixture-of-experts model in FP4 or MXFP4 with its routed experts alone
// in p and the rest in BF16, as NVIDIA's NVFP4 checkpoints of such models
// are (their exclude_modules keep every layer's self_attn, and Kimi-K2.5's
// its shared experts and dense MLP, in BF16: nvidia/MiniMax-M2.5-NVFP4,
// nvidia/DeepSeek-R1-NVFP4, Kimi-K2.5-NVFP4; withExpertWeights); any other
// model with every linear layer in p (WithWeights). The KV cache is
// unchanged.
func (m ModelSpec) Quantized(p Precision) ModelSpec {
	switch {
	case m.Stored().Family() == p.Family():
		return m
	case m.Experts > 0 && p.Family() == FP4:
		return m.WithWeights(BF16).withExpertWeights(p)
	}
	return m.WithWeights(p)
}

// withExpertWeights returns m with only its routed experts stored in p,
// as checkpoints that quantize the experts alone are (NVIDIA's NVFP4
// mixture-of-experts checkpoints keep attention, shared experts and dense
// MLPs in 16 bits): ExpertWeightBytes becomes p.Bytes() and ExpertGEMM p;
// the other weights keep their width and GEMM precision. A dense model
// (Experts 0) is returned unchanged.
func (m ModelSpec) withExpertWeights(p Precision) ModelSpec {
	if m.Experts == 0 {
		return m
	}
	m.ExpertWeightBytes = p.Bytes()
	m.ExpertGEMM = p
	return m
}

// WithKVCache returns m with its KV cache stored in p (vLLM's
// --kv-cache-dtype): KVBytes becomes p.kvBytes(). A format vLLM does not
// offer for the cache leaves KVBytes 0, which Validate rejects.
func (m ModelSpec) WithKVCache(p Precision) ModelSpec {
	m.KVBytes = p.kvBytes()
	return m
}
