package cost

import (
	"slices"
	"sort"
	"strings"
)

// GiB is 2^30 bytes. Catalog memory capacities quote the datasheet's "N GB"
// as N GiB: HBM and GDDR capacities are binary (an A100 80GB reports
// 81920 MiB), so this is the closer reading.
const GiB = 1 << 30

// Catalog model entries. Shapes are the public Hugging Face config.json of
// each model (hidden_size, intermediate_size, num_hidden_layers,
// num_attention_heads, num_key_value_heads, head_dim, vocab_size,
// tie_word_embeddings, max_position_embeddings), in BF16 weights, KV cache
// and activations.
var models = map[string]ModelSpec{
	// https://huggingface.co/meta-llama/Llama-3.1-8B/blob/main/config.json
	// Published size: 8.03B parameters.
	"llama-3.1-8b": bf16Model(ModelSpec{Name: "llama-3.1-8b", Hidden: 4096, Intermediate: 14336, Layers: 32,
		Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxContext: 131072}),
	// https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json
	// Published size: 70.6B parameters.
	"llama-3.1-70b": bf16Model(ModelSpec{Name: "llama-3.1-70b", Hidden: 8192, Intermediate: 28672, Layers: 80,
		Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxContext: 131072}),
	// https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json
	// Published size: 405.9B parameters ("406B").
	"llama-3.1-405b": bf16Model(ModelSpec{Name: "llama-3.1-405b", Hidden: 16384, Intermediate: 53248, Layers: 126,
		Heads: 128, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxContext: 131072}),
	// https://huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json
	// Model card: 7.61B parameters, 6.53B non-embedding. Q/K/V carry biases.
	"qwen2.5-7b": bf16Model(ModelSpec{Name: "qwen2.5-7b", Hidden: 3584, Intermediate: 18944, Layers: 28,
		Heads: 28, KVHeads: 4, HeadDim: 128, Vocab: 152064, QKVBias: true, MaxContext: 131072}),
	// https://huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json
	// Model card: 72.7B parameters. Q/K/V carry biases.
	"qwen2.5-72b": bf16Model(ModelSpec{Name: "qwen2.5-72b", Hidden: 8192, Intermediate: 29568, Layers: 80,
		Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 152064, QKVBias: true, MaxContext: 131072}),
	// https://huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json:
	// llama-3.1-8b's shape with an 8192-token context.
	"llama-3-8b": bf16Model(ModelSpec{Name: "llama-3-8b", Hidden: 4096, Intermediate: 14336, Layers: 32,
		Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 128256, MaxContext: 8192}),
	// https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json
	// Published size: 1.24B parameters (tied embeddings).
	"llama-3.2-1b": bf16Model(ModelSpec{Name: "llama-3.2-1b", Hidden: 2048, Intermediate: 8192, Layers: 16,
		Heads: 32, KVHeads: 8, HeadDim: 64, Vocab: 128256, TiedEmbeddings: true, MaxContext: 131072}),
	// https://huggingface.co/meta-llama/Llama-3.2-3B/blob/main/config.json
	// Published size: 3.21B parameters (tied embeddings).
	"llama-3.2-3b": bf16Model(ModelSpec{Name: "llama-3.2-3b", Hidden: 3072, Intermediate: 8192, Layers: 28,
		Heads: 24, KVHeads: 8, HeadDim: 128, Vocab: 128256, TiedEmbeddings: true, MaxContext: 131072}),
	// https://huggingface.co/meta-llama/Llama-2-7b-hf/blob/main/config.json
	// Published size: 6.74B parameters; multi-head attention.
	"llama-2-7b": bf16Model(ModelSpec{Name: "llama-2-7b", Hidden: 4096, Intermediate: 11008, Layers: 32,
		Heads: 32, KVHeads: 32, HeadDim: 128, Vocab: 32000, MaxContext: 4096}),
	// https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json (also in
	// ../shared/data/model_configs). Model card: 8.2B parameters.
	"qwen3-8b": bf16Model(ModelSpec{Name: "qwen3-8b", Hidden: 4096, Intermediate: 12288, Layers: 36,
		Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxContext: 40960}),
	// https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json (also in
	// ../shared/data/model_configs). Model card: 32.8B parameters.
	"qwen3-32b": bf16Model(ModelSpec{Name: "qwen3-32b", Hidden: 5120, Intermediate: 25600, Layers: 64,
		Heads: 64, KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxContext: 40960}),
	// https://huggingface.co/openai/gpt-oss-20b/blob/main/config.json (also
	// in ../shared/data/model_configs), as ParseHFConfig reads it: MXFP4
	// experts (4.25 bits), BF16 attention, half the layers sliding.
	"gpt-oss-20b": {Name: "gpt-oss-20b", Hidden: 2880, Intermediate: 2880, Layers: 24, Heads: 64, KVHeads: 8, HeadDim: 64,
		Vocab: 201088, MaxContext: 131072, QKVBias: true, WeightBytes: 2, KVBytes: 2, ActBytes: 2,
		ExpertWeightBytes: 0.53125, EmbeddingBytes: 2, GEMM: BF16, ExpertGEMM: MXFP4, Experts: 32, ExpertsPerToken: 4, RoutingSkew: routingSkewMoE,
		ExpertIntermediate: 2880, SlidingLayers: 12, SlidingWindow: 128},
	// https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json (also
	// in ../shared/data/model_configs), as ParseHFConfig reads it.
	"gpt-oss-120b": {Name: "gpt-oss-120b", Hidden: 2880, Intermediate: 2880, Layers: 36, Heads: 64, KVHeads: 8, HeadDim: 64,
		Vocab: 201088, MaxContext: 131072, QKVBias: true, WeightBytes: 2, KVBytes: 2, ActBytes: 2,
		ExpertWeightBytes: 0.53125, EmbeddingBytes: 2, GEMM: BF16, ExpertGEMM: MXFP4, Experts: 128, ExpertsPerToken: 4, RoutingSkew: routingSkewMoE,
		ExpertIntermediate: 2880, SlidingLayers: 18, SlidingWindow: 128},
	// https://huggingface.co/mistralai/Mistral-7B-v0.3/blob/main/config.json
	// Published size: 7.25B parameters (vocabulary 32768).
	"mistral-7b": bf16Model(ModelSpec{Name: "mistral-7b", Hidden: 4096, Intermediate: 14336, Layers: 32,
		Heads: 32, KVHeads: 8, HeadDim: 128, Vocab: 32768, MaxContext: 32768}),
}

func bf16Model(m ModelSpec) ModelSpec {
	m.WeightBytes, m.KVBytes, m.ActBytes = 2, 2, 2
	return m
}

// Fitted α–β all-reduce parameters, single node, all sizes 2 KiB–64 MiB,
// relative-error least squares on the median times (the tests'
// fitAlphaBeta with no size limits). Source: microsoft/vidur
// data/profiling/network/{h100_dgx, a100_dgx}/all_reduce.csv (MIT), kept in
// ../shared/data; the tests refit them from those files.
var (
	h100DGXAllReduce = AlphaBetaTable{
		{Ranks: 2, Alpha: 16.62e-6, BusBandwidth: 282.1e9},
		{Ranks: 4, Alpha: 30.61e-6, BusBandwidth: 379.5e9},
		{Ranks: 8, Alpha: 28.58e-6, BusBandwidth: 338.9e9},
	}
	a100DGXAllReduce = AlphaBetaTable{
		{Ranks: 2, Alpha: 35.84e-6, BusBandwidth: 158.4e9},
		{Ranks: 4, Alpha: 28.74e-6, BusBandwidth: 153.9e9},
		{Ranks: 8, Alpha: 38.98e-6, BusBandwidth: 152.0e9},
	}
)

// Fitted vLLM tensor-parallel all-reduce parameters per rank count
// (docs/cost-model.md#vllms-all-reduce). Size limits from vLLM's source
// (vllm-project/vllm@00d618aa, Apache-2.0): the custom kernel takes
// S < CustomMaxBytes, 8 MiB (CustomAllreduce max_size) unless PyTorch
// symmetric memory is on (VLLM_ALLREDUCE_USE_SYMM_MEM, default 1), when
// all_reduce_utils.CUSTOM_ALL_REDUCE_MAX_SIZES lowers it per compute
// capability and SYMM_MEM_ALL_REDUCE_MAX_SIZES gives the symmetric-memory
// limit (SM 8.0 has neither table: no symmetric memory). Times from
// ai-dynamo/aiconfigurator@095f58a5 (Apache-2.0),
// aic-core/src/aiconfigurator_core/systems/data/<system>/comm/vllm/<version>/custom_allreduce_perf.parquet,
// vLLM's own tensor_model_parallel_all_reduce replayed in a CUDA graph
// (bf16), kept in testdata/aiconfigurator. Each algorithm is fitted on the
// measured sizes vLLM routes to it (the tests' fitAlphaBeta, relative
// error); the tests refit them from those files.
var (
	// A100-SXM4-80GB, vLLM 0.14.0; SM 8.0: custom below 8 MiB, then NCCL.
	a100VLLMAllReduce = vllmAllReduceTable{
		{Ranks: 2, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{5.045e-6, 200.1e9}},
		{Ranks: 4, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{5.283e-6, 162.3e9}, TwoShot: linkCost{10.68e-6, 204.6e9}},
		{Ranks: 8, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{5.923e-6, 175.3e9}, TwoShot: linkCost{15.06e-6, 258.6e9}},
	}
	// H100 80GB HBM3 (DGX/HGX), vLLM 0.19.0; SM 9.0.
	h100VLLMAllReduce = vllmAllReduceTable{
		{Ranks: 2, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{4.271e-6, 262.0e9},
			SymmMemMaxBytes: 64 * miB, SymmMem: linkCost{15.54e-6, 265.3e9}},
		{Ranks: 4, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{4.576e-6, 308.9e9}, TwoShot: linkCost{7.956e-6, 292.4e9},
			SymmMemMaxBytes: 32 * miB, SymmMem: linkCost{12.76e-6, 305.6e9}},
		{Ranks: 8, CustomMaxBytes: 256 * kiB, OneShot: linkCost{4.611e-6, 277.4e9},
			SymmMemMaxBytes: 64 * miB, SymmMem: linkCost{9.455e-6, 359.0e9}},
	}
	// H200, vLLM 0.19.0; SM 9.0.
	h200VLLMAllReduce = vllmAllReduceTable{
		{Ranks: 2, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{4.416e-6, 266.6e9},
			SymmMemMaxBytes: 64 * miB, SymmMem: linkCost{13.38e-6, 274.3e9}},
		{Ranks: 4, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{4.583e-6, 314.0e9}, TwoShot: linkCost{7.320e-6, 293.3e9},
			SymmMemMaxBytes: 32 * miB, SymmMem: linkCost{12.63e-6, 316.7e9}},
		{Ranks: 8, CustomMaxBytes: 256 * kiB, OneShot: linkCost{4.732e-6, 273.9e9},
			SymmMemMaxBytes: 64 * miB, SymmMem: linkCost{8.739e-6, 374.1e9}},
	}
	// B200, vLLM 0.19.0; SM 10.0. The two-shot kernel is flat (about
	// 18 µs at 4 ranks, 26 µs at 8) over the two sizes it serves: its
	// fitted bandwidths are not link rates.
	b200VLLMAllReduce = vllmAllReduceTable{
		{Ranks: 2, CustomMaxBytes: 2 * miB, OneShot: linkCost{6.798e-6, 182.2e9},
			SymmMemMaxBytes: 8 * miB, SymmMem: linkCost{19.25e-6, 308.5e9}},
		{Ranks: 4, CustomMaxBytes: 2 * miB, OneShot: linkCost{7.243e-6, 484.6e9}, TwoShot: linkCost{17.18e-6, 880.5e9},
			SymmMemMaxBytes: 32 * miB, SymmMem: linkCost{17.07e-6, 481.7e9}},
		{Ranks: 8, CustomMaxBytes: 1 * miB, OneShot: linkCost{7.658e-6, 481.2e9}, TwoShot: linkCost{25.86e-6, 4843e9},
			SymmMemMaxBytes: 128 * miB, SymmMem: linkCost{14.02e-6, 596.0e9}},
	}
	// B300 SXM6, vLLM 0.19.0; SM 10.3. At 2 ranks symmetric memory would
	// take exactly S = 4 MiB (its limit equals the custom one), one
	// measured size: left to NCCL.
	b300VLLMAllReduce = vllmAllReduceTable{
		{Ranks: 2, CustomMaxBytes: 4 * miB, OneShot: linkCost{6.705e-6, 169.6e9}},
		{Ranks: 4, CustomMaxBytes: 4 * miB, OneShot: linkCost{6.870e-6, 402.3e9}, TwoShot: linkCost{13.83e-6, 247.1e9},
			SymmMemMaxBytes: 32 * miB, SymmMem: linkCost{15.36e-6, 477.0e9}},
		{Ranks: 8, CustomMaxBytes: 4 * miB, OneShot: linkCost{7.226e-6, 400.7e9}, TwoShot: linkCost{25.57e-6, 1025e9},
			SymmMemMaxBytes: 64 * miB, SymmMem: linkCost{10.84e-6, 534.0e9}},
	}
	// GB200 (4 GPUs per compute tray), vLLM 0.19.0; SM 10.0; measured at 2
	// and 4 ranks. Tensor parallelism beyond a tray spans nodes, where vLLM
	// disables its custom all-reduce.
	gb200VLLMAllReduce = vllmAllReduceTable{
		{Ranks: 2, CustomMaxBytes: 2 * miB, OneShot: linkCost{4.539e-6, 177.7e9},
			SymmMemMaxBytes: 8 * miB, SymmMem: linkCost{0.5413e-6, 153.6e9}},
		{Ranks: 4, CustomMaxBytes: 2 * miB, OneShot: linkCost{5.146e-6, 458.1e9}, TwoShot: linkCost{9.746e-6, 563.9e9},
			SymmMemMaxBytes: 32 * miB, SymmMem: linkCost{11.17e-6, 425.9e9}},
	}
	// RTX PRO 6000 Blackwell Server Edition, vLLM 0.19.0; SM 12.0, which has
	// no entry in vLLM's per-capability size tables, so the custom kernel
	// takes messages below its 8 MiB max_size and symmetric memory is off.
	// Over PCIe peer-to-peer the one-shot kernel (the only one at 2 ranks)
	// reads the peer's whole buffer at 14.6 GB/s, slower than NCCL's ring at
	// every measured size (NCCL: 6.2-6.8 µs up to 8 KiB, 9.2 µs at 64 KiB);
	// vLLM runs it all the same. Fitted from 2 KiB (a token of the smallest
	// hidden size in the catalog's models is 4 KiB): up to 1 KiB it takes
	// 8.7 µs, from 2 KiB 17-22 µs before the bandwidth term shows. vLLM
	// disables the custom kernel for more than 2 GPUs without full NVLink,
	// so 4 and 8 ranks run NCCL.
	rtxpro6000VLLMAllReduce = vllmAllReduceTable{
		{Ranks: 2, CustomMaxBytes: vllmCustomMaxBytes, OneShot: linkCost{18.55e-6, 14.64e9}},
	}
)

// Fitted NCCL all-reduce α–β of Blackwell systems, all sizes 512 B–1 GiB,
// relative-error least squares (FitAll with no size limits), like the DGX
// fits above. Source: ai-dynamo/aiconfigurator@095f58a5 (Apache-2.0),
// aic-core/src/aiconfigurator_core/systems/data/<system>/comm/nccl/2.29.2/nccl_perf.parquet
// (NCCL 2.29.2, fp16), kept in testdata/aiconfigurator.
var (
	b200NCCLAllReduce = AlphaBetaTable{
		{Ranks: 2, Alpha: 11.02e-6, BusBandwidth: 474.4e9},
		{Ranks: 4, Alpha: 16.36e-6, BusBandwidth: 556.0e9},
		{Ranks: 8, Alpha: 27.19e-6, BusBandwidth: 584.5e9},
	}
	b300NCCLAllReduce = AlphaBetaTable{
		{Ranks: 2, Alpha: 10.82e-6, BusBandwidth: 479.8e9},
		{Ranks: 4, Alpha: 15.88e-6, BusBandwidth: 562.4e9},
		{Ranks: 8, Alpha: 26.67e-6, BusBandwidth: 587.5e9},
	}
	gb200NCCLAllReduce = AlphaBetaTable{
		{Ranks: 2, Alpha: 11.67e-6, BusBandwidth: 475.7e9},
		{Ranks: 4, Alpha: 16.99e-6, BusBandwidth: 554.3e9},
	}
	// RTX PRO 6000 Blackwell Server Edition, PCIe Gen5 without NVLink.
	rtxpro6000NCCLAllReduce = AlphaBetaTable{
		{Ranks: 2, Alpha: 6.791e-6, BusBandwidth: 34.65e9},
		{Ranks: 4, Alpha: 13.64e-6, BusBandwidth: 24.52e9},
		{Ranks: 8, Alpha: 26.91e-6, BusBandwidth: 22.09e9},
	}
)

// mi300AllReduce is the RCCL estimate of the MI300X and MI325X (one
// Infinity Fabric): about 70% of the links a ring of p GPUs can drive
// (p−1 links at 64 GB/s), α 25 µs.
var mi300AllReduce = AlphaBetaTable{
	{Ranks: 2, Alpha: 25e-6, BusBandwidth: 45e9},
	{Ranks: 4, Alpha: 25e-6, BusBandwidth: 135e9},
	{Ranks: 8, Alpha: 25e-6, BusBandwidth: 310e9},
}

// Catalog GPU entries: dense (not sparse) tensor peaks from the vendor
// datasheets, which usually print the 2:4-sparse figure first (the dense
// figure is half of it). AllReduce holds NCCL α–β parameters only where a
// measurement or an earlier documented estimate exists; entries without
// them need Deployment.Comm (an NCCL table) for TP > 1. VLLMAllReduce is
// set where vLLM's own all-reduce was measured: the NVLink systems.
var gpus = map[string]GPUSpec{
	// AWS A10G (EC2 G5): NVIDIA publishes no A10G datasheet. 24 GB GDDR6 at
	// 600 GB/s and its tensor rate, 70 TFLOPS FP16/BF16 dense, and 35 TFLOPS
	// FP32 as reported by Baseten, "NVIDIA A10 vs A10G for ML model
	// inference" (baseten.co/blog/nvidia-a10-vs-a10g-for-ml-model-inference);
	// the tensor figures are not re-verified from an NVIDIA source (a
	// published matmul reaches 69.7 TFLOP/s, profiles/a10g.yaml). PCIe
	// Gen4 x16, no NVLink. No all-reduce measurement.
	"a10g": {Name: "a10g", MemoryBytes: 24 * GiB, BandwidthBytesPerS: 600e9,
		PeakFLOPS:    PeakFLOPS{FP32: 35e12, BF16: 70e12, FP16: 70e12},
		Interconnect: "PCIe Gen4 x16, no NVLink"},
	// NVIDIA L4 datasheet (nvidia.com/en-us/data-center/l4/): 24GB GDDR6 300 GB/s; FP8 485 TFLOPS, BF16/FP16
	// 242 TFLOPS, INT8 485 TOPS, all with sparsity (242.5, 121, 242.5
	// dense); FP32 30.3 TFLOPS; PCIe Gen4 x16, no NVLink. No all-reduce
	// measurement.
	"l4": {Name: "l4", MemoryBytes: 24 * GiB, BandwidthBytesPerS: 300e9,
		PeakFLOPS:    PeakFLOPS{FP32: 30.3e12, BF16: 121e12, FP16: 121e12, FP8: 242.5e12, INT8: 242.5e12},
		Interconnect: "PCIe Gen4 x16, no NVLink"},
	// NVIDIA A100 Tensor Core GPU datasheet, SXM4 40GB: HBM2 1,555 GB/s,
	// otherwise the A100 80GB figures below (the A100 architecture
	// whitepaper lists INT4 1,248 TOPS dense). All-reduce: the DGX A100 fit
	// and the A100-SXM4-80GB vLLM measurement (same NVLink 3 + NVSwitch).
	"a100-40gb": {Name: "a100-40gb", MemoryBytes: 40 * GiB, BandwidthBytesPerS: 1555e9,
		PeakFLOPS:    PeakFLOPS{FP32: 19.5e12, BF16: 312e12, FP16: 312e12, INT8: 624e12, INT4: 1248e12},
		Interconnect: "NVLink 3 + NVSwitch, 600 GB/s per GPU", AllReduce: a100DGXAllReduce,
		VLLMAllReduce: a100VLLMAllReduce},
	// NVIDIA A100 Tensor Core GPU datasheet, SXM4 80GB: HBM2e 2,039 GB/s,
	// BF16/FP16 312 TFLOPS, INT8 624 TOPS, FP32 19.5 TFLOPS, no FP8;
	// NVLink 3 600 GB/s. All-reduce: NCCL fitted from the DGX A100 profile,
	// vLLM's custom all-reduce from the A100-SXM4-80GB measurement.
	"a100-80gb": {Name: "a100-80gb", MemoryBytes: 80 * GiB, BandwidthBytesPerS: 2039e9,
		PeakFLOPS:    PeakFLOPS{FP32: 19.5e12, BF16: 312e12, FP16: 312e12, INT8: 624e12, INT4: 1248e12},
		Interconnect: "NVLink 3 + NVSwitch, 600 GB/s per GPU", AllReduce: a100DGXAllReduce,
		VLLMAllReduce: a100VLLMAllReduce},
	// NVIDIA H100 Tensor Core GPU datasheet, H100 SXM: 80GB HBM3 3.35 TB/s,
	// BF16/FP16 989 TFLOPS, FP8/INT8 1,979 T(FL)OPS dense, FP32 67 TFLOPS;
	// NVLink 4 900 GB/s. All-reduce: NCCL fitted from the DGX H100 profile,
	// vLLM's custom and symmetric-memory all-reduces from the H100 SXM
	// measurement.
	"h100-sxm": {Name: "h100-sxm", MemoryBytes: 80 * GiB, BandwidthBytesPerS: 3.35e12,
		PeakFLOPS:    PeakFLOPS{FP32: 67e12, BF16: 989.4e12, FP16: 989.4e12, FP8: 1978.9e12, INT8: 1978.9e12},
		Interconnect: "NVLink 4 + NVSwitch, 900 GB/s per GPU", AllReduce: h100DGXAllReduce,
		VLLMAllReduce: h100VLLMAllReduce},
	// NVIDIA H100 Tensor Core GPU datasheet, H100 PCIe: 80GB HBM2e 2 TB/s,
	// BF16/FP16 1,513 TFLOPS and FP8/INT8 3,026 T(FL)OPS with sparsity
	// (756.5 and 1,513 dense), FP32 51 TFLOPS; PCIe Gen5 x16 128 GB/s, NVLink
	// bridge 600 GB/s between pairs. No all-reduce measurement.
	"h100-pcie": {Name: "h100-pcie", MemoryBytes: 80 * GiB, BandwidthBytesPerS: 2e12,
		PeakFLOPS:    PeakFLOPS{FP32: 51e12, BF16: 756.5e12, FP16: 756.5e12, FP8: 1513e12, INT8: 1513e12},
		Interconnect: "PCIe Gen5 x16, NVLink bridge 600 GB/s per pair"},
	// NVIDIA HGX H20 (the Hopper part for the Chinese market; NVIDIA
	// publishes its specification to partners, not on nvidia.com): 96GB
	// HBM3 4.0 TB/s; FP16/BF16 148 TFLOPS and FP8/INT8 296 T(FL)OPS dense,
	// TF32 74, FP32 44 TFLOPS; 78 SMs; NVLink 4 900 GB/s; 400 W. As
	// reproduced by willitrunai.com/gpus/h20-96gb and zangshuxian.com/new/674733024499207168
	// (the second lists every precision). No all-reduce measurement.
	"h20": {Name: "h20", MemoryBytes: 96 * GiB, BandwidthBytesPerS: 4.0e12,
		PeakFLOPS:    PeakFLOPS{FP32: 44e12, BF16: 148e12, FP16: 148e12, FP8: 296e12, INT8: 296e12},
		Interconnect: "NVLink 4, 900 GB/s per GPU"},
	// NVIDIA H200 Tensor Core GPU datasheet, H200 SXM: 141GB HBM3e 4.8 TB/s,
	// same tensor peaks and NVLink 4 as H100 SXM. All-reduce: NCCL estimated
	// by the DGX H100 fit (same NVLink generation and NVSwitch); vLLM's
	// custom and symmetric-memory all-reduces from the H200 measurement.
	"h200": {Name: "h200", MemoryBytes: 141 * GiB, BandwidthBytesPerS: 4.8e12,
		PeakFLOPS:    PeakFLOPS{FP32: 67e12, BF16: 989.4e12, FP16: 989.4e12, FP8: 1978.9e12, INT8: 1978.9e12},
		Interconnect: "NVLink 4 + NVSwitch, 900 GB/s per GPU", AllReduce: h100DGXAllReduce,
		VLLMAllReduce: h200VLLMAllReduce},
	// NVIDIA DGX B200 / HGX B200 datasheets: 1,440 GB HBM3e and 64 TB/s for
	// 8 GPUs (180 GB, 8 TB/s each); 36 PFLOPS BF16, 72 PFLOPS FP8 for 8 GPUs
	// with sparsity (2.25 / 4.5 PFLOPS dense each); FP32 75 TFLOPS each;
	// NVLink 5 1.8 TB/s per GPU. All-reduce: NCCL and vLLM's all-reduces
	// fitted from the aiconfigurator B200 measurements.
	// FP4 72 PFLOPS dense for 8 GPUs (9 PFLOPS each; HGX B200 at 1,000 W,
	// glennklockwood.com/garden/processors/B200 lists the same).
	"b200": {Name: "b200", MemoryBytes: 180 * GiB, BandwidthBytesPerS: 8e12,
		PeakFLOPS:    PeakFLOPS{FP32: 75e12, BF16: 2.25e15, FP16: 2.25e15, FP8: 4.5e15, INT8: 4.5e15, FP4: 9e15},
		Interconnect: "NVLink 5 + NVSwitch, 1.8 TB/s per GPU", AllReduce: b200NCCLAllReduce,
		VLLMAllReduce: b200VLLMAllReduce},
	// NVIDIA HGX B300 (Blackwell Ultra) platform: 8 GPUs with FP4 144 PFLOPS
	// sparse / 108 PFLOPS dense (13.5 PFLOPS dense each), FP8 72 PFLOPS and
	// BF16 36 PFLOPS sparse (4.5 and 2.25 PFLOPS dense each), FP32 75 TFLOPS
	// each, 8 TB/s HBM3e per GPU, NVLink 5 1.8 TB/s per GPU. Secondary
	// tables disagree on dense FP4 (glennklockwood.com/garden/processors/B300
	// 13.1 PFLOPS, Verda's GB300 NVL72 article 14). Memory: 270 GB per GPU
	// as Verda's per-GPU table lists it (the part is sold as 288 GB; B200's
	// 180 GB above is the same kind of figure). INT8 is cut on Blackwell
	// Ultra (Verda: 0.15 POPS) and left out. All-reduce: NCCL and vLLM's
	// all-reduces fitted from the aiconfigurator B300 SXM6 measurements.
	"b300": {Name: "b300", MemoryBytes: 270 * GiB, BandwidthBytesPerS: 8e12,
		PeakFLOPS:    PeakFLOPS{FP32: 75e12, BF16: 2.25e15, FP16: 2.25e15, FP8: 4.5e15, FP4: 13.5e15},
		Interconnect: "NVLink 5 + NVSwitch, 1.8 TB/s per GPU", AllReduce: b300NCCLAllReduce,
		VLLMAllReduce: b300VLLMAllReduce},
	// NVIDIA GB200 NVL72: 72 GPUs with FP4 1,440 PFLOPS, FP8 720 PFLOPS and
	// BF16 360 PFLOPS with sparsity (10, 5 and 2.5 PFLOPS dense per GPU;
	// glennklockwood.com/garden/processors/B200 lists the same for the
	// 1,200 W GB200 part, and FP32 90 TFLOPS), 576 TB/s HBM3e (8 TB/s per
	// GPU), NVLink 5 1.8 TB/s per GPU across the rack. Memory: 186 GB per
	// GPU, as MLCommons inference submissions name the part (GB200-186GB).
	// All-reduce: NCCL and vLLM's all-reduces fitted from the aiconfigurator
	// GB200 measurements, at 2 and 4 ranks (one compute tray); more ranks
	// take the 4-rank NCCL fit.
	"gb200": {Name: "gb200", MemoryBytes: 186 * GiB, BandwidthBytesPerS: 8e12,
		PeakFLOPS:    PeakFLOPS{FP32: 90e12, BF16: 2.5e15, FP16: 2.5e15, FP8: 5e15, INT8: 5e15, FP4: 10e15},
		Interconnect: "NVLink 5 + NVLink Switch (NVL72), 1.8 TB/s per GPU", AllReduce: gb200NCCLAllReduce,
		VLLMAllReduce: gb200VLLMAllReduce},
	// NVIDIA L40S datasheet: 48GB GDDR6 864 GB/s, BF16/FP16 362 TFLOPS,
	// FP8/INT8 733 T(FL)OPS dense, FP32 91.6 TFLOPS; PCIe Gen4 x16, no NVLink.
	// All-reduce: estimate for PCIe Gen4 rings (α 25 µs, 20 GB/s bus).
	"l40s": {Name: "l40s", MemoryBytes: 48 * GiB, BandwidthBytesPerS: 864e9,
		PeakFLOPS:    PeakFLOPS{FP32: 91.6e12, BF16: 362.05e12, FP16: 362.05e12, FP8: 733e12, INT8: 733e12},
		Interconnect: "PCIe Gen4 x16", AllReduce: AlphaBetaTable{{Alpha: 25e-6, BusBandwidth: 20e9}}},
	// NVIDIA Ada Lovelace architecture whitepaper
	// (images.nvidia.com/aem-dam/Solutions/geforce/ada/nvidia-ada-gpu-architecture.pdf),
	// GeForce RTX 4090: 24GB
	// GDDR6X 1,008 GB/s, FP16/BF16 tensor with FP32 accumulate 165.2 TFLOPS,
	// FP8 330.3 TFLOPS, INT8 660.6 TOPS, INT4 1,321.2 TOPS dense, FP32 82.6
	// TFLOPS; PCIe Gen4
	// x16 without peer-to-peer. All-reduce: estimate for host-staged PCIe
	// traffic (α 30 µs, 12 GB/s bus).
	"rtx4090": {Name: "rtx4090", MemoryBytes: 24 * GiB, BandwidthBytesPerS: 1008e9,
		PeakFLOPS:    PeakFLOPS{FP32: 82.6e12, BF16: 165.2e12, FP16: 165.2e12, FP8: 330.3e12, INT8: 660.6e12, INT4: 1321.2e12},
		Interconnect: "PCIe Gen4 x16, no P2P", AllReduce: AlphaBetaTable{{Alpha: 30e-6, BusBandwidth: 12e9}}},
	// NVIDIA RTX Blackwell GPU architecture whitepaper
	// (images.nvidia.com/aem-dam/Solutions/geforce/blackwell/nvidia-rtx-blackwell-gpu-architecture.pdf),
	// GeForce RTX 5090:
	// 32GB GDDR7 1,792 GB/s; 3,352 AI TOPS = FP4 with sparsity (1,676
	// dense); FP16/BF16 tensor with FP32 accumulate 209.5 TFLOPS and FP8 with
	// FP32 accumulate 419 TFLOPS dense (GeForce runs FP32 accumulation at half
	// rate, as the RTX 4090 above); FP32 104.8 TFLOPS. The tensor figures
	// other than AI TOPS are not re-verified from the whitepaper in this
	// change; a published cuBLASLt BF16 GEMM reaches 254 TFLOP/s, 1.21x the
	// BF16 figure here (profiles/rtx5090.yaml), so that figure may read the
	// card low. PCIe Gen5 x16, no NVLink. No all-reduce measurement.
	"rtx5090": {Name: "rtx5090", MemoryBytes: 32 * GiB, BandwidthBytesPerS: 1792e9,
		PeakFLOPS:    PeakFLOPS{FP32: 104.8e12, BF16: 209.5e12, FP16: 209.5e12, FP8: 419e12, FP4: 1676e12},
		Interconnect: "PCIe Gen5 x16, no NVLink"},
	// NVIDIA RTX PRO 6000 Blackwell (GB202, as the RTX 5090, 188 SMs): 96GB
	// GDDR7 1,792 GB/s (NVIDIA's announcement, GTC 2025); 4,000 AI TOPS =
	// FP4 with sparsity, so 2,000 dense, and FP8 1,000 and BF16/FP16 500
	// TFLOPS dense by the tensor cores' 2× steps, with FP32 accumulation at
	// full rate on professional cards (the GeForce RTX 5090 above runs it at
	// half); FP32 125 TFLOPS. The dense tensor figures are derived, not read
	// from a datasheet table. PCIe Gen5 x16, no NVLink. All-reduce: NCCL
	// and vLLM's custom kernel measured on the Server Edition (the same
	// GB202 and memory; rtxpro6000NCCLAllReduce, rtxpro6000VLLMAllReduce).
	"rtxpro6000": {Name: "rtxpro6000", MemoryBytes: 96 * GiB, BandwidthBytesPerS: 1792e9,
		PeakFLOPS:    PeakFLOPS{FP32: 125e12, BF16: 500e12, FP16: 500e12, FP8: 1000e12, FP4: 2000e12},
		Interconnect: "PCIe Gen5 x16, no NVLink", AllReduce: rtxpro6000NCCLAllReduce,
		VLLMAllReduce: rtxpro6000VLLMAllReduce},
	// AMD Instinct MI300X data sheet
	// (amd.com/content/dam/amd/en/documents/instinct-tech-docs/data-sheets/amd-instinct-mi300x-data-sheet.pdf):
	// 192 GB HBM3 5.3 TB/s, BF16/FP16 1,307.4 TFLOPS, FP8/INT8 2,614.9
	// T(FL)OPS dense, FP32 vector 163.4 TFLOPS (81.7 is the FP64 vector
	// figure, which this entry held before); Infinity Fabric, 7 links of
	// 128 GB/s (64 GB/s each way) per GPU.
	// All-reduce: estimate (mi300AllReduce).
	"mi300x": {Name: "mi300x", MemoryBytes: 192 * GiB, BandwidthBytesPerS: 5.3e12,
		PeakFLOPS:    PeakFLOPS{FP32: 163.4e12, BF16: 1307.4e12, FP16: 1307.4e12, FP8: 2614.9e12, INT8: 2614.9e12},
		Interconnect: "Infinity Fabric, 896 GB/s per GPU",
		AllReduce:    mi300AllReduce},
	// AMD Instinct MI325X (amd.com/en/products/accelerators/instinct/mi300/mi325x.html):
	// the MI300X's CDNA 3 compute die set with 256 GB of HBM3E at 6 TB/s;
	// BF16/FP16 1,307.4 TFLOPS, FP8/INT8 2,614.9 T(FL)OPS dense, FP32
	// vector 163.4 TFLOPS, as the MI300X; the same Infinity Fabric, 7 links
	// of 128 GB/s per GPU. All-reduce: the MI300X estimate (same fabric).
	"mi325x": {Name: "mi325x", MemoryBytes: 256 * GiB, BandwidthBytesPerS: 6e12,
		PeakFLOPS:    PeakFLOPS{FP32: 163.4e12, BF16: 1307.4e12, FP16: 1307.4e12, FP8: 2614.9e12, INT8: 2614.9e12},
		Interconnect: "Infinity Fabric, 896 GB/s per GPU",
		AllReduce:    mi300AllReduce},
}

// Model returns the catalog entry called name (see ModelNames). The error
// wraps ErrUnknownName and lists the known names.
func Model(name string) (ModelSpec, error) {
	m, ok := models[name]
	if !ok {
		return ModelSpec{}, errorf(ErrUnknownName, "unknown model %q (known: %s)", name, strings.Join(ModelNames(), ", "))
	}
	return m, nil
}

// GPU returns the catalog entry called name (see GPUNames), with its own
// copies of the all-reduce tables. The error wraps ErrUnknownName and lists the
// known names.
func GPU(name string) (GPUSpec, error) {
	g, ok := gpus[name]
	if !ok {
		return GPUSpec{}, errorf(ErrUnknownName, "unknown gpu %q (known: %s)", name, strings.Join(GPUNames(), ", "))
	}
	g.AllReduce = slices.Clone(g.AllReduce)
	g.VLLMAllReduce = slices.Clone(g.VLLMAllReduce)
	return g, nil
}

// ModelNames returns the catalog's model names, sorted.
func ModelNames() []string { return sortedKeys(models) }

// GPUNames returns the catalog's GPU names, sorted.
func GPUNames() []string { return sortedKeys(gpus) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
