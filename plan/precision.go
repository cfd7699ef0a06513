package plan

import (
	"fmt"

	"github.com/servesim/servesim/cost"
)

// ApplyPrecision returns d served in precision p, with the `vllm serve`
// flags that select it. A plan searches two precisions:
//
//   - cost.BF16 serves the unquantized checkpoint: 2-byte weights, KV cache
//     and activations, at the GPU's BF16 peak. It needs a checkpoint of at
//     least 16 bits (ModelSpec.WeightBytes ≥ 2); routed experts the
//     checkpoint quantized alone (gpt-oss's MXFP4, ModelSpec.ExpertGEMM)
//     stay as stored.
//   - cost.FP8 is vLLM's `--quantization fp8`. On a GPU with FP8 tensor
//     cores (GPUSpec.PeakFLOPS.FP8 > 0: H100, H200, B200, L40S, ...) weights
//     and GEMM activations are FP8 (W8A8, every FLOP at the FP8 peak) and
//     the KV cache is FP8 too (`--kv-cache-dtype fp8`): 1-byte weights and
//     KV. On a GPU without them (A100) vLLM runs FP8 weights through its
//     weight-only kernels: 1-byte weights, BF16 compute and KV cache.
//     All-reduces stay BF16 (ActBytes 2) either way.
//
// It fails when the precision does not apply to the model (BF16 from a
// checkpoint stored in fewer than 2 bytes a weight, FP8 from one stored in
// fewer than 1 or whose experts are quantized already, which vLLM's
// --quantization fp8 does not take) and for any other precision.
func ApplyPrecision(p cost.Precision, d cost.Deployment) (cost.Deployment, []string, error) {
	m := &d.Model
	switch p {
	case cost.BF16:
		if m.WeightBytes < 2 {
			return d, nil, fmt.Errorf("bf16 needs a checkpoint of 16 bits or more; model %q stores %v-byte weights", m.Name, m.WeightBytes)
		}
		m.WeightBytes, m.KVBytes, m.ActBytes = 2, 2, 2
		return d, nil, nil
	case cost.FP8:
		if m.WeightBytes < 1 {
			return d, nil, fmt.Errorf("fp8 needs a checkpoint of 8 bits or more; model %q stores %v-byte weights", m.Name, m.WeightBytes)
		}
		if m.ExpertGEMM != cost.PrecisionUnset && m.ExpertGEMM != cost.FP8 {
			return d, nil, fmt.Errorf("fp8 does not apply to model %q: its experts are %v already", m.Name, m.ExpertGEMM)
		}
		var args []string
		if m.WeightBytes > 1 {
			args = append(args, "--quantization", "fp8")
		}
		m.WeightBytes, m.ActBytes = 1, 2
		if fp8 := d.GPU.PeakFLOPS.FP8; fp8 > 0 {
			m.KVBytes = 1
			m.GEMM = cost.FP8
			args = append(args, "--kv-cache-dtype", "fp8")
		} else {
			m.KVBytes = 2
			m.GEMM = cost.BF16
		}
		return d, args, nil
	default:
		return d, nil, fmt.Errorf("%w: precision %q: a plan searches bf16 and fp8", ErrInvalid, p)
	}
}
