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
	// all-reduce payload and selects the GPU's peak FLOP/s (2 → BF16).
	ActBytes float64 `json:"act_bytes" yaml:"act_bytes"`
}

// Validate reports every problem with m, each matching ErrInvalidSpec and
// naming the field and its value, joined with errors.Join. It returns nil for
// a usable spec.
func (m ModelSpec) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, invalidf("model %q: "+format, append([]any{m.Name}, args...)...))
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
			bad("%s %d must be >= 1", f.name, f.v)
		}
	}
	if m.MaxContext < 0 {
		bad("max_context %d must be >= 0 (0: unknown)", m.MaxContext)
	}
	if m.Heads > 0 && m.KVHeads > 0 && m.Heads%m.KVHeads != 0 {
		bad("kv_heads %d must divide heads %d", m.KVHeads, m.Heads)
	}
	floats := []struct {
		name string
		v    float64
	}{
		{"weight_bytes", m.WeightBytes}, {"kv_bytes", m.KVBytes}, {"act_bytes", m.ActBytes},
	}
	for _, f := range floats {
		if !positiveFinite(f.v) {
			bad("%s %v must be a finite number > 0", f.name, f.v)
		}
	}
	return errors.Join(errs...)
}

// QWidth returns heads·head_dim, the output width of the Q projection
// (equal to Hidden for the catalog models), in elements.
func (m ModelSpec) QWidth() int { return m.Heads * m.HeadDim }

// KVWidth returns H_KV = kv_heads·head_dim, the output width of each of the
// K and V projections, in elements.
func (m ModelSpec) KVWidth() int { return m.KVHeads * m.HeadDim }

// LayerMatmulParams returns the weight elements of one transformer block that
// take part in matrix multiplications: Q, K, V, O and the three SwiGLU
// matrices. Biases and norms are left out.
func (m ModelSpec) LayerMatmulParams() float64 {
	h, q, kv, i := float64(m.Hidden), float64(m.QWidth()), float64(m.KVWidth()), float64(m.Intermediate)
	return 2*h*q + 2*h*kv + 3*h*i
}

// EmbeddingParams returns vocab·hidden, the size of the input embedding
// (and of the LM head), in elements.
func (m ModelSpec) EmbeddingParams() float64 { return float64(m.Vocab) * float64(m.Hidden) }

// MatmulParams returns the weight elements streamed from memory by one
// forward step: every block's projections plus the LM head. The input
// embedding is a row lookup and is not streamed; the LM head is, whether or
// not it is tied to the embedding. Qwen2.5-7B has 7.07e9.
func (m ModelSpec) MatmulParams() float64 {
	return float64(m.Layers)*m.LayerMatmulParams() + m.EmbeddingParams()
}

// TotalParams returns the model's parameter count: projections, biases,
// RMSNorm weights, the embedding, and the LM head when it is not tied.
// Llama-3.1-8B has 8.03e9, Qwen2.5-7B 7.62e9.
func (m ModelSpec) TotalParams() float64 {
	h := float64(m.Hidden)
	perLayer := m.LayerMatmulParams() + 2*h // two RMSNorm weight vectors
	if m.QKVBias {
		perLayer += float64(m.QWidth() + 2*m.KVWidth())
	}
	embeddings := m.EmbeddingParams()
	if !m.TiedEmbeddings {
		embeddings *= 2
	}
	return float64(m.Layers)*perLayer + h + embeddings // h: final norm
}

// NonEmbeddingParams returns TotalParams less the embedding and the untied
// LM head, the figure model cards quote as "non-embedding".
func (m ModelSpec) NonEmbeddingParams() float64 {
	e := m.EmbeddingParams()
	if !m.TiedEmbeddings {
		e *= 2
	}
	return m.TotalParams() - e
}

// WeightBytesTotal returns the bytes all weights occupy in memory, all ranks
// together: TotalParams × WeightBytes.
func (m ModelSpec) WeightBytesTotal() float64 { return m.TotalParams() * m.WeightBytes }

// MatmulWeightBytes returns the weight bytes one forward step streams from
// memory, all ranks together: MatmulParams × WeightBytes.
func (m ModelSpec) MatmulWeightBytes() float64 { return m.MatmulParams() * m.WeightBytes }

// KVBytesPerToken returns the KV-cache bytes one token occupies in the whole
// model (all ranks together): 2 · layers · kv_heads · head_dim · kv_bytes.
// Qwen2.5-7B in BF16 has 57344 (56 KiB).
func (m ModelSpec) KVBytesPerToken() float64 {
	return 2 * float64(m.Layers) * float64(m.KVWidth()) * m.KVBytes
}

// ProjectionFLOPsPerLayer returns the FLOPs of one block's projections for
// tokens tokens (docs/cost-model.md#projection-flops), counting a
// multiply-add as 2 FLOPs: F = 4T(H·H_Q + H·H_KV) + 6T·H·I, which is
// 4T(H² + H·H_KV) + 6T·H·I when H_Q = H. Attention scores, norms and the
// LM head are not included.
func (m ModelSpec) ProjectionFLOPsPerLayer(tokens float64) float64 {
	return matmulFLOPs(m.LayerMatmulParams(), tokens)
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

// TPStepTraffic returns the bus-equivalent bytes each rank moves in one step
// of tokens tokens at TP degree p: V = 4L·(p−1)/p·T·H·e_a (2L all-reduces of
// 2(p−1)/p·S each). It is 0 for p ≤ 1.
func (m ModelSpec) TPStepTraffic(tokens float64, p int) float64 {
	if p <= 1 {
		return 0
	}
	return m.allReducesPerStep() * BusBytes(m.AllReducePayload(tokens), p)
}

func positiveFinite(v float64) bool { return v > 0 && !math.IsInf(v, 1) }

func nonNegativeFinite(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }
