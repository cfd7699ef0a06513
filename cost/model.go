package cost

import (
	"errors"
	"math"
)

// ModelSpec describes a dense decoder-only transformer with grouped-query
// attention and a SwiGLU MLP (Llama, Qwen2, Mistral), as far as the cost model
// needs it. Sizes are element counts; the *Bytes fields are bytes per element
// of the stored weights, of the KV cache and of the activations that the
// tensor-parallel all-reduce moves.
//
// Users can write a ModelSpec literally, take one from the catalog (Model)
// or load one from JSON or YAML (LoadModel); the struct tags give the
// snake_case field names of those files.
type ModelSpec struct {
	// Name identifies the model in error messages and reports.
	Name string `json:"name" yaml:"name"`
	// Hidden is the residual-stream width H (hidden_size).
	Hidden int `json:"hidden" yaml:"hidden"`
	// Intermediate is the MLP width I (intermediate_size).
	Intermediate int `json:"intermediate" yaml:"intermediate"`
	// Layers is the number of transformer blocks L (num_hidden_layers).
	Layers int `json:"layers" yaml:"layers"`
	// Heads is the number of query heads (num_attention_heads).
	Heads int `json:"heads" yaml:"heads"`
	// KVHeads is the number of key/value heads (num_key_value_heads); it
	// must divide Heads.
	KVHeads int `json:"kv_heads" yaml:"kv_heads"`
	// HeadDim is the width of one attention head (head_dim, usually
	// hidden_size / num_attention_heads).
	HeadDim int `json:"head_dim" yaml:"head_dim"`
	// Vocab is the vocabulary size (vocab_size).
	Vocab int `json:"vocab" yaml:"vocab"`
	// MaxContext is the longest sequence (prompt plus output, tokens) the
	// model was trained for (max_position_embeddings): vLLM's default
	// max_model_len. 0 means unknown.
	MaxContext int `json:"max_context,omitempty" yaml:"max_context,omitempty"`
	// TiedEmbeddings is true when the LM head reuses the input embedding
	// matrix (tie_word_embeddings). It changes the parameter count, not the
	// bytes streamed per step: a tied LM head is still read in full.
	TiedEmbeddings bool `json:"tied_embeddings" yaml:"tied_embeddings"`
	// QKVBias is true when the Q, K and V projections carry biases (Qwen2).
	// It only changes TotalParams.
	QKVBias bool `json:"qkv_bias,omitempty" yaml:"qkv_bias,omitempty"`
	// WeightBytes is the storage size of one weight element in bytes
	// (2 for BF16, 1 for FP8, 0.5 for 4-bit).
	WeightBytes float64 `json:"weight_bytes" yaml:"weight_bytes"`
	// KVBytes is the storage size of one KV-cache element in bytes.
	KVBytes float64 `json:"kv_bytes" yaml:"kv_bytes"`
	// ActBytes is the size of one activation element in bytes; it sets the
	// all-reduce payload and, when GEMM is unset, selects the GPU's peak
	// FLOP/s (2 → BF16).
	ActBytes float64 `json:"act_bytes" yaml:"act_bytes"`

	// ExpertWeightBytes is the storage size of one routed-expert weight in
	// bytes when it differs from WeightBytes (gpt-oss: MXFP4 experts, BF16
	// attention); 0 means WeightBytes.
	ExpertWeightBytes float64 `json:"expert_weight_bytes,omitempty" yaml:"expert_weight_bytes,omitempty"`
	// EmbeddingBytes is the storage size of one element of the input
	// embedding and the LM head when it differs from WeightBytes (quantized
	// checkpoints keep them in 16 bits); 0 means WeightBytes.
	EmbeddingBytes float64 `json:"embedding_bytes,omitempty" yaml:"embedding_bytes,omitempty"`
	// GEMM is the precision the matrix multiplications run at; it selects
	// the GPU's peak FLOP/s (Precision.peak). Unset means the peak for
	// ActBytes (PeakFLOPS.ForBytes).
	GEMM Precision `json:"gemm,omitempty" yaml:"gemm,omitempty"`
	// ExpertGEMM is the precision the routed experts' matrix
	// multiplications run at when it differs from GEMM, as in checkpoints
	// that quantize only the experts (gpt-oss: MXFP4 experts beside BF16
	// attention; NVIDIA's NVFP4 mixture-of-experts checkpoints). It selects
	// the experts' peak FLOP/s and their fused-MoE entry
	// (Profile.MoE); unset means GEMM.
	ExpertGEMM Precision `json:"expert_gemm,omitempty" yaml:"expert_gemm,omitempty"`

	// Experts is the number of routed experts of each mixture-of-experts
	// layer (num_local_experts, num_experts, n_routed_experts); 0 for a
	// dense model (docs/cost-model.md#mixture-of-experts).
	Experts int `json:"experts,omitempty" yaml:"experts,omitempty"`
	// ExpertsPerToken is k, the routed experts each token uses
	// (num_experts_per_tok).
	ExpertsPerToken int `json:"experts_per_token,omitempty" yaml:"experts_per_token,omitempty"`
	// RoutingSkew is α, the exponent of the power law the routed experts'
	// loads in one step follow (expectedDistinctExperts, powerLawTouched),
	// in (1, 2); 0 means uniform routing. Catalog and Hugging Face models
	// take aiconfigurator's defaults: 1.01 for MLA models (its DeepSeek
	// family: DeepSeek-V3, Kimi-K2), 1.2 for the others (its generic MoE
	// model: Qwen3-MoE, Mixtral, MiniMax-M2, gpt-oss).
	RoutingSkew float64 `json:"routing_skew,omitempty" yaml:"routing_skew,omitempty"`
	// ExpertIntermediate is the SwiGLU width of one routed expert
	// (moe_intermediate_size, else intermediate_size).
	ExpertIntermediate int `json:"expert_intermediate,omitempty" yaml:"expert_intermediate,omitempty"`
	// DenseLayers is the number of layers whose MLP is dense, of width
	// Intermediate, instead of a mixture of experts (first_k_dense_replace,
	// mlp_only_layers, decoder_sparse_step).
	DenseLayers int `json:"dense_layers,omitempty" yaml:"dense_layers,omitempty"`
	// SharedIntermediate is the total SwiGLU width of the shared experts
	// every token of a MoE layer uses (n_shared_experts ×
	// moe_intermediate_size, shared_expert_intermediate_size); 0 for none.
	SharedIntermediate int `json:"shared_intermediate,omitempty" yaml:"shared_intermediate,omitempty"`

	// KVLoRARank is the latent width of multi-head latent attention
	// (DeepSeek-V3, Kimi-K2 kv_lora_rank); 0 for grouped-query attention
	// (docs/cost-model.md#mla). With MLA, HeadDim is the query/key head
	// width qk_nope_head_dim + qk_rope_head_dim and kvWidth is unused.
	KVLoRARank int `json:"kv_lora_rank,omitempty" yaml:"kv_lora_rank,omitempty"`
	// QLoRARank is the latent width of the MLA query projection; 0 means a
	// full-rank query projection.
	QLoRARank int `json:"q_lora_rank,omitempty" yaml:"q_lora_rank,omitempty"`
	// QKRopeHeadDim is the rotary part of each MLA query/key head, cached
	// once per token beside the latent.
	QKRopeHeadDim int `json:"qk_rope_head_dim,omitempty" yaml:"qk_rope_head_dim,omitempty"`
	// QKNopeHeadDim is the non-rotary part of each MLA query/key head.
	QKNopeHeadDim int `json:"qk_nope_head_dim,omitempty" yaml:"qk_nope_head_dim,omitempty"`
	// VHeadDim is the width of each MLA value head.
	VHeadDim int `json:"v_head_dim,omitempty" yaml:"v_head_dim,omitempty"`

	// SlidingLayers is the number of layers that attend only to the last
	// SlidingWindow tokens (gpt-oss, Gemma 2/3); 0 for none.
	SlidingLayers int `json:"sliding_layers,omitempty" yaml:"sliding_layers,omitempty"`
	// SlidingWindow is the window of those layers, in tokens.
	SlidingWindow int `json:"sliding_window,omitempty" yaml:"sliding_window,omitempty"`

	// AttnOutputGate is true when each softmax-attention layer gates its
	// output by a second query-sized projection (Qwen3-Next, Qwen3.5
	// attn_output_gate): the Q projection is twice QWidth wide.
	AttnOutputGate bool `json:"attn_output_gate,omitempty" yaml:"attn_output_gate,omitempty"`
	// Linear is the Gated DeltaNet linear attention of the layers that use
	// it instead of softmax attention (Qwen3-Next, Qwen3.5
	// "linear_attention" layers); zero for none
	// (docs/cost-model.md#linear-attention).
	Linear linearAttention `json:"linear,omitzero" yaml:"linear,omitempty"`
}

// Validate reports every problem with m, each an ErrInvalidSpec
// *fielderr.Error naming the field (its key in a model file), the value
// and the limit, joined with errors.Join in the order of the fields. It
// returns nil for a usable spec.
func (m ModelSpec) Validate() error {
	var errs []error
	bad := func(field string, value any, limit string, args ...any) {
		errs = append(errs, invalidField(field, value, limit, args...))
	}
	ints := []struct {
		name string
		v    int
	}{
		{"hidden", m.Hidden}, {"intermediate", m.Intermediate}, {"layers", m.Layers},
		{"heads", m.Heads}, {"kv_heads", m.KVHeads}, {"head_dim", m.HeadDim}, {"vocab", m.Vocab},
	}
	for _, f := range ints {
		if f.v <= 0 {
			bad(f.name, f.v, "must be >= 1")
		}
	}
	if m.MaxContext < 0 {
		bad("max_context", m.MaxContext, "must be >= 0 (0: unknown)")
	}
	if m.Heads > 0 && m.KVHeads > 0 && m.Heads%m.KVHeads != 0 {
		bad("kv_heads", m.KVHeads, "must divide heads %d", m.Heads)
	}
	floats := []struct {
		name string
		v    float64
	}{
		{"weight_bytes", m.WeightBytes}, {"kv_bytes", m.KVBytes}, {"act_bytes", m.ActBytes},
	}
	for _, f := range floats {
		if !positiveFinite(f.v) {
			bad(f.name, f.v, "must be a finite number > 0")
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"expert_weight_bytes", m.ExpertWeightBytes}, {"embedding_bytes", m.EmbeddingBytes}} {
		if !nonNegativeFinite(f.v) {
			bad(f.name, f.v, "must be a finite number >= 0 (0: weight_bytes)")
		}
	}
	if !m.GEMM.valid() {
		bad("gemm", uint8(m.GEMM), "is not a known precision")
	}
	if !m.ExpertGEMM.valid() {
		bad("expert_gemm", uint8(m.ExpertGEMM), "is not a known precision")
	} else if m.ExpertGEMM != PrecisionUnset && m.Experts == 0 {
		bad("expert_gemm", m.ExpertGEMM, "is set on a dense model (experts 0)")
	}
	m.validateMoE(bad)
	m.validateAttention(bad)
	m.validateLinear(bad)
	return errors.Join(errs...)
}

// badField records one problem: the field, its value and the limit (a
// format for args).
type badField func(field string, value any, limit string, args ...any)

// validateMoE checks the mixture-of-experts fields through bad.
func (m ModelSpec) validateMoE(bad badField) {
	moe := []struct {
		name string
		v    int
	}{
		{"experts_per_token", m.ExpertsPerToken}, {"expert_intermediate", m.ExpertIntermediate},
		{"dense_layers", m.DenseLayers}, {"shared_intermediate", m.SharedIntermediate},
	}
	switch {
	case m.Experts < 0:
		bad("experts", m.Experts, "must be >= 0 (0: dense)")
	case m.Experts == 0:
		for _, f := range moe {
			if f.v != 0 {
				bad(f.name, f.v, "needs experts > 0")
			}
		}
	default:
		if m.ExpertsPerToken < 1 || m.ExpertsPerToken > m.Experts {
			bad("experts_per_token", m.ExpertsPerToken, "must be in [1, experts %d]", m.Experts)
		}
		if m.ExpertIntermediate < 1 {
			bad("expert_intermediate", m.ExpertIntermediate, "must be >= 1")
		}
		if m.DenseLayers < 0 || (m.Layers > 0 && m.DenseLayers >= m.Layers) {
			bad("dense_layers", m.DenseLayers, "must be in [0, layers %d)", m.Layers)
		}
		if m.SharedIntermediate < 0 {
			bad("shared_intermediate", m.SharedIntermediate, "must be >= 0")
		}
	}
	if s := m.RoutingSkew; s != 0 && !(s > 1 && s < 2) {
		bad("routing_skew", s, "must be 0 (uniform routing) or in (1, 2)")
	} else if s != 0 && m.Experts == 0 {
		bad("routing_skew", s, "is set on a dense model (experts 0)")
	}
}

// validateAttention checks the MLA and sliding-window fields through bad.
func (m ModelSpec) validateAttention(bad badField) {
	mla := []struct {
		name string
		v    int
	}{
		{"qk_rope_head_dim", m.QKRopeHeadDim}, {"qk_nope_head_dim", m.QKNopeHeadDim}, {"v_head_dim", m.VHeadDim},
	}
	switch {
	case m.KVLoRARank < 0:
		bad("kv_lora_rank", m.KVLoRARank, "must be >= 0 (0: no MLA)")
	case m.KVLoRARank > 0:
		for _, f := range mla {
			if f.v < 1 {
				bad(f.name, f.v, "must be >= 1 with kv_lora_rank %d", m.KVLoRARank)
			}
		}
		if m.QLoRARank < 0 {
			bad("q_lora_rank", m.QLoRARank, "must be >= 0 (0: full-rank queries)")
		}
		if m.SlidingLayers != 0 {
			bad("sliding_layers", m.SlidingLayers, "is set, and sliding windows with MLA are not modelled")
		}
	default:
		for _, f := range append(mla, struct {
			name string
			v    int
		}{"q_lora_rank", m.QLoRARank}) {
			if f.v != 0 {
				bad(f.name, f.v, "needs kv_lora_rank > 0")
			}
		}
	}
	if m.SlidingLayers < 0 || (m.Layers > 0 && m.SlidingLayers > m.Layers) {
		bad("sliding_layers", m.SlidingLayers, "must be in [0, layers %d]", m.Layers)
	}
	if m.SlidingLayers > 0 && m.SlidingWindow < 1 {
		bad("sliding_window", m.SlidingWindow, "must be >= 1 with sliding_layers %d", m.SlidingLayers)
	}
	if m.SlidingWindow < 0 {
		bad("sliding_window", m.SlidingWindow, "must be >= 0")
	}
}

// qWidth returns heads·head_dim, the output width of the Q projection
// (equal to Hidden for the catalog models), in elements.
func (m ModelSpec) qWidth() int { return m.Heads * m.HeadDim }

// kvWidth returns H_KV = kv_heads·head_dim, the output width of each of the
// K and V projections, in elements.
func (m ModelSpec) kvWidth() int { return m.KVHeads * m.HeadDim }

// layerMatmulParams returns the weight elements of one dense transformer
// block that take part in matrix multiplications: the attention projections
// (attentionParams: Q, K, V, O) and the three SwiGLU matrices of width
// Intermediate. Biases and norms are left out. A mixture-of-experts layer
// holds attentionParams plus its experts instead (MoELayerParams).
func (m ModelSpec) layerMatmulParams() float64 {
	h, i := float64(m.Hidden), float64(m.Intermediate)
	return m.attentionParams() + 3*h*i
}

// attentionParams returns the matmul weight elements of one layer's
// softmax attention. Grouped-query attention: Q and O (H × H_Q each), K and V
// (H × H_KV each), 2·H·H_Q + 2·H·H_KV; with AttnOutputGate the Q
// projection is 2·H_Q wide, 3·H·H_Q + 2·H·H_KV. Multi-head latent attention
// (docs/cost-model.md#mla): the query down- and up-projections
// H·r_q + r_q·n_h·(d_nope + d_rope) (or H·n_h·(d_nope + d_rope) without a
// query latent), the joint KV down-projection H·(r_kv + d_rope), the KV
// up-projection r_kv·n_h·(d_nope + d_v) and the output n_h·d_v·H.
func (m ModelSpec) attentionParams() float64 {
	h := float64(m.Hidden)
	if !m.mla() {
		q, kv := float64(m.qWidth()), float64(m.kvWidth())
		if m.AttnOutputGate {
			q *= 1.5 // Q and its gate (2·H·H_Q) beside O (H·H_Q)
		}
		return 2*h*q + 2*h*kv
	}
	return m.mlaDownParams() + m.mlaUpParams() + float64(m.Heads)*float64(m.VHeadDim)*h
}

// mla reports whether the model uses multi-head latent attention.
func (m ModelSpec) mla() bool { return m.KVLoRARank > 0 }

// mlaDownParams returns the MLA projections from the residual stream into
// the latents, H·r_q + H·(r_kv + d_rope), which vLLM replicates on every
// tensor-parallel rank; 0 without MLA. Without a query latent the query
// projection is full-rank and split like any other (mlaUpParams).
func (m ModelSpec) mlaDownParams() float64 {
	if !m.mla() {
		return 0
	}
	h := float64(m.Hidden)
	return h*float64(m.QLoRARank) + h*float64(m.KVLoRARank+m.QKRopeHeadDim)
}

// mlaUpParams returns the MLA projections split across tensor-parallel
// ranks by head, except the output: the query up-projection (or the
// full-rank query projection) and the KV up-projection.
func (m ModelSpec) mlaUpParams() float64 {
	n, qk, v := float64(m.Heads), float64(m.QKNopeHeadDim+m.QKRopeHeadDim), float64(m.VHeadDim)
	qIn := float64(m.QLoRARank)
	if m.QLoRARank == 0 {
		qIn = float64(m.Hidden)
	}
	return qIn*n*qk + float64(m.KVLoRARank)*n*(float64(m.QKNopeHeadDim)+v)
}

// embeddingParams returns vocab·hidden, the size of the input embedding
// (and of the LM head), in elements.
func (m ModelSpec) embeddingParams() float64 { return float64(m.Vocab) * float64(m.Hidden) }

// MatmulParams returns the weight elements streamed from memory by one
// forward step: every block's projections plus the LM head. The input
// embedding is a row lookup and is not streamed; the LM head is, whether or
// not it is tied to the embedding. Qwen2.5-7B has 7.07e9.
//
// For a mixture-of-experts model it counts every expert: the weights all
// resident experts hold, which a step reads only when its tokens route to
// all of them (see routedExpertParams and expectedDistinctExperts).
func (m ModelSpec) MatmulParams() float64 {
	return m.blockParams() + m.routedExpertParams() + m.embeddingParams()
}

// blockParams returns the matmul weights of all layers except the routed
// experts: attention, dense MLPs, shared experts and routers.
func (m ModelSpec) blockParams() float64 {
	h := float64(m.Hidden)
	if m.Experts == 0 {
		return m.mixerParams() + float64(m.Layers)*3*h*float64(m.Intermediate)
	}
	moe := float64(m.moeLayers()) * (3*h*float64(m.SharedIntermediate) + h*float64(m.Experts)) // shared experts, router
	return m.mixerParams() + float64(m.DenseLayers)*3*h*float64(m.Intermediate) + moe
}

// TotalParams returns the model's parameter count: projections (every
// expert of every MoE layer, the routers), biases, RMSNorm weights, the
// embedding, and the LM head when it is not tied. Llama-3.1-8B has 8.03e9,
// Qwen2.5-7B 7.62e9, DeepSeek-V3 6.71e11 (without its multi-token
// prediction module).
func (m ModelSpec) TotalParams() float64 {
	h := float64(m.Hidden)
	perLayer := 2 * h // two RMSNorm weight vectors
	if m.mla() {
		perLayer += float64(m.QLoRARank + m.KVLoRARank) // latent RMSNorms
	}
	mixers := m.mixerParams() + float64(m.Linear.Layers)*m.Linear.otherParams()
	if m.QKVBias {
		mixers += float64(m.attentionLayers()) * float64(m.qWidth()+2*m.kvWidth())
	}
	embeddings := m.embeddingParams()
	if !m.TiedEmbeddings {
		embeddings *= 2
	}
	mlps := m.blockParams() - m.mixerParams() + m.routedExpertParams()
	return float64(m.Layers)*perLayer + mixers + mlps + h + embeddings // h: final norm
}

// nonEmbeddingParams returns TotalParams less the embedding and the untied
// LM head, the figure model cards quote as "non-embedding".
func (m ModelSpec) nonEmbeddingParams() float64 {
	e := m.embeddingParams()
	if !m.TiedEmbeddings {
		e *= 2
	}
	return m.TotalParams() - e
}

// WeightBytesTotal returns the bytes all weights occupy in memory, all ranks
// together: TotalParams × WeightBytes, with the routed experts at
// ExpertWeightBytes and the embedding and LM head at EmbeddingBytes when
// those are set.
func (m ModelSpec) WeightBytesTotal() float64 {
	return m.TotalParams()*m.WeightBytes + m.mixedPrecisionBytes(m.embeddingTotalParams())
}

// MatmulWeightBytes returns the weight bytes one forward step streams from
// memory when it touches every expert, all ranks together: MatmulParams ×
// WeightBytes, with the precisions of WeightBytesTotal.
func (m ModelSpec) MatmulWeightBytes() float64 {
	return m.MatmulParams()*m.WeightBytes + m.mixedPrecisionBytes(m.embeddingParams())
}

// mixedPrecisionBytes returns what the routed experts and embed embedding
// elements add to a count priced at WeightBytes when they are stored at
// other widths; 0 when every weight is at WeightBytes.
func (m ModelSpec) mixedPrecisionBytes(embed float64) float64 {
	return m.routedExpertParams()*(m.expertBytes()-m.WeightBytes) + embed*(m.embeddingBytes()-m.WeightBytes)
}

// embeddingTotalParams returns the embedding, counted twice when the LM head
// is not tied to it.
func (m ModelSpec) embeddingTotalParams() float64 {
	if m.TiedEmbeddings {
		return m.embeddingParams()
	}
	return 2 * m.embeddingParams()
}

// KVBytesPerToken returns the KV-cache bytes one token of context occupies
// in the whole model (all ranks together), in the layers that keep every
// token: 2 · layers · kv_heads · head_dim · kv_bytes. Qwen2.5-7B in BF16
// has 57344 (56 KiB).
//
// With MLA each layer caches the latent and the rotary key once,
// layers · (kv_lora_rank + qk_rope_head_dim) · kv_bytes (DeepSeek-V3 in
// BF16: 61·576·2 = 70272). With sliding-window layers beside full ones
// (gpt-oss, Gemma), only the full layers count here: a sliding layer holds
// at most SlidingWindow tokens of a sequence (slidingKVBytesPerToken). When
// every layer slides, all count.
func (m ModelSpec) KVBytesPerToken() float64 {
	if m.mla() {
		return float64(m.Layers) * float64(m.KVLoRARank+m.QKRopeHeadDim) * m.KVBytes
	}
	return 2 * float64(m.fullLayers()) * float64(m.kvWidth()) * m.KVBytes
}

// slidingKVBytesPerToken returns the KV-cache bytes one token takes in the
// sliding-window layers (all ranks together), 2 · sliding_layers · kv_heads
// · head_dim · kv_bytes, for the last SlidingWindow tokens of a sequence
// only. It is 0 without sliding layers, and when every layer slides (then
// KVBytesPerToken counts them).
func (m ModelSpec) slidingKVBytesPerToken() float64 {
	if m.SlidingLayers == 0 || m.SlidingLayers >= m.Layers || m.mla() {
		return 0
	}
	return 2 * float64(m.SlidingLayers) * float64(m.kvWidth()) * m.KVBytes
}

// fullLayers returns the layers whose KV cache holds every token: all the
// softmax-attention layers, less the sliding-window layers when some
// layers are full.
func (m ModelSpec) fullLayers() int {
	n := m.attentionLayers()
	if m.SlidingLayers > 0 && m.SlidingLayers < n {
		return n - m.SlidingLayers
	}
	return n
}

// ProjectionFLOPsPerLayer returns the FLOPs of one block's projections for
// tokens tokens (docs/cost-model.md#projection-flops), counting a
// multiply-add as 2 FLOPs: F = 4T(H·H_Q + H·H_KV) + 6T·H·I, which is
// 4T(H² + H·H_KV) + 6T·H·I when H_Q = H. Attention scores, norms and the
// LM head are not included.
func (m ModelSpec) ProjectionFLOPsPerLayer(tokens float64) float64 {
	return matmulFLOPs(m.layerMatmulParams(), tokens)
}

// matmulFLOPs returns the FLOPs of multiplying tokens activations by params
// weights: one multiply-add, 2 FLOPs, per weight per token.
func matmulFLOPs(params, tokens float64) float64 { return 2 * params * tokens }

// allReducesPerStep returns 2L: under tensor parallelism every block
// all-reduces twice, after attention and after the MLP.
func (m *ModelSpec) allReducesPerStep() float64 { return 2 * float64(m.Layers) }

// AllReducePayload returns S = T·H·e_a, the bytes of the [T, H] activation
// that each tensor-parallel all-reduce sums.
func (m ModelSpec) AllReducePayload(tokens float64) float64 {
	return tokens * float64(m.Hidden) * m.ActBytes
}

func positiveFinite(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

func nonNegativeFinite(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
