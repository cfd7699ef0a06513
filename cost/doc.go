// Package cost is servesim's analytic cost model of LLM inference: pure
// functions of a model, a GPU, a tensor-parallel degree and the shape of a
// batch, with no simulation engine behind them (docs/cost-model.md).
//
// # Main types
//
//   - ModelSpec: a decoder-only transformer (hidden, intermediate, layers,
//     heads, KV heads, head dim, vocab, dtype sizes), dense or mixture of
//     experts (experts, experts per token, expert width, dense layers,
//     shared experts, the skew of its routing), with grouped-query or
//     multi-head latent attention and optional sliding-window layers, and
//     its derived values:
//     TotalParams, MatmulParams (what a step streams: projections and LM
//     head, not the embedding lookup), KVBytesPerToken, Shape(p).
//     LoadHFConfig and ParseHFConfig read one from a Hugging Face
//     config.json.
//   - Precision: BF16, FP16, FP8, INT8, FP4 (NVFP4), MXFP4, INT4 with their
//     bits per weight (block scales included) and GEMM peak;
//     ModelSpec.Quantized, WithWeights and WithKVCache
//     serve a model in them, with the routed experts at their own
//     precision (ExpertGEMM) when a checkpoint quantizes them alone.
//   - GPUSpec: memory, bandwidth, dense peak FLOP/s per dtype, NCCL α–β
//     all-reduce parameters per rank count and, on NVLink systems, vLLM's
//     custom and symmetric-memory all-reduces (VLLMAllReduce).
//   - Model, GPU, ModelNames, GPUNames: the catalog (llama-3.1-8b/70b/405b,
//     qwen2.5-7b/72b, mistral-7b; a10g, l4, l40s, a100-40gb, a100-80gb,
//     h100-pcie, h100-sxm, h20, h200, b200, b300, gb200, mi300x, mi325x, rtx4090,
//     rtx5090, rtxpro6000), each entry citing its public source. LoadModel and
//     LoadGPU read user-defined specs from JSON or YAML.
//   - AllReduce: the time of one all-reduce. AlphaBeta and AlphaBetaTable
//     implement τ(S, p) = α_p + 2(p−1)S/(p·B_p); the table
//     topology.LoadNCCLTable reads interpolates NCCL measurements; a Deployment without a Comm
//     dispatches each message as vLLM does (one-shot or two-shot custom
//     kernel, PyTorch symmetric memory, else NCCL) from the GPU's
//     vllm_all_reduce table, the internals of which stay in the package.
//   - ModelSpec.ProjectionFLOPsPerLayer and AllReducePayload: the terms of
//     the ideal tensor-parallel screen (screen.TPModel: speed-up and the
//     token threshold T* above which TP=p beats one GPU).
//   - Deployment: one engine replica, defined once — model × GPU × TP
//     (× attention data-parallel groups DP and expert parallelism EP for a
//     mixture of experts), the
//     all-reduce model (Comm, e.g. an NCCL table), the Efficiency profile
//     and the memory settings (gpu_memory_utilization, kv_cache_memory,
//     runtime reserve). Servers hold it whole. Memory gives the per-rank
//     memory budget and KV pool in tokens and blocks; Step predicts the time of one step of a Batch (decode requests
//     plus prefill chunks; under DP, Batch.DPTokens are all groups' tokens
//     through the MoE layers) as a roofline — max(bytes/bandwidth,
//     FLOPs/peak) per rank, plus 2L all-reduces and a fixed overhead — and
//     returns a StepCost breakdown from which a server reports MBU and MFU.
//   - Profile: a GPU's efficiency profile (bandwidth fraction, GEMM curve,
//     attention efficiencies, step overhead per layer and per sequence,
//     frontend, sampling, fused-MoE entries per expert precision),
//     embedded from profiles/*.yaml with each number's source: H100 SXM
//     from a serving fit (its bandwidth fraction per-operator), A100,
//     H200, B200, B300, GB200, L40S and RTX PRO 6000 by the transfer rule
//     from per-operator data (the A100 file checked against a second
//     source, vidur's GEMM timings), fused-MoE entries fitted to
//     per-operator MoE timings (docs/cost-model.md); RTX 4090, RTX 5090,
//     L4, A10G, MI300X and MI325X by the datasheet rule (their memory class's
//     fractions and published microbenchmarks, no kernel timings of their
//     own). DefaultProfile gives a GPU its catalog
//     profile, or H100's numbers when it has none; batching.Defaults
//     prices steps with it, so it is what every command predicts with by
//     default.
//   - StepModel and DecodeStep: a Deployment's step constants compiled
//     once, and a fixed count of decoders priced as their context grows
//     (the time, bytes, FLOPs and communication time a step loop reads),
//     equal bit for bit to Step.
//
// # Units and conventions
//
// Times are seconds, sizes bytes, rates bytes/s and FLOP/s, lengths tokens.
// A multiply-add counts 2 FLOPs. Byte and FLOP counts in a StepCost are per
// rank. The zero Efficiency is the ideal roofline floor; DefaultEfficiency is
// the three-number starting point a Deployment without a Profile uses. KV writes of the step's new tokens are reported
// (StepCost.KVWriteBytes) but, as in
// docs/reference-numbers.md#roofline-floors, not charged to the roofline.
//
// # Errors and concurrency
//
// Every Validate, loader and constructor rejects bad input with an error
// that matches ErrInvalidSpec under errors.Is and reads as one sentence
// naming the field and its value; nothing panics on user input. A
// Validate's error is a *fielderr.Error per problem, its Field the key in
// the file the value came from and File that file (`m.yaml: layers: 0
// must be >= 1`), joined with errors.Join so that errors.As finds the
// first; the other errors (a file that does not parse, a deployment that
// does not fit) start with "cost: ". All values are immutable after construction and safe for
// concurrent use. Deployment.Step and StepModel.Step are O(1) and do not
// allocate: call them once per simulated step.
//
// # Examples
//
// See the package examples (ExampleDeployment_Step,
// ExampleDeployment_Memory) and the runnable programs
// examples/tpscreen (the TP table of
// docs/reference-numbers.md#tp-speed-up-table and a TP screen of
// Llama-3.1-70B on H100) and examples/roofline (the decode floors of
// docs/reference-numbers.md#roofline-floors: Qwen2.5-7B on an RTX 4090):
//
//	go run ./examples/tpscreen
//	go run ./examples/roofline
package cost
