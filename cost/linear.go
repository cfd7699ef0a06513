package cost

import "math"

// linearAttention is the Gated DeltaNet linear attention of a hybrid model's
// linear-attention layers (Qwen3-Next, Qwen3.5; transformers' and vLLM's
// GatedDeltaNet), as config.json's linear_* fields size it
// (docs/cost-model.md#linear-attention). Such a layer keeps no KV cache:
// each sequence carries a fixed-size state, a short-convolution window and
// one key × value matrix per value head, read and written once a step
// whatever its context.
type linearAttention struct {
	// Layers is the number of layers whose token mixer is linear attention
	// (layer_types entries "linear_attention"); the other Layers −
	// Layers of the model use softmax attention. 0 for none.
	Layers int `json:"layers" yaml:"layers"`
	// KeyHeads and ValueHeads are linear_num_key_heads and
	// linear_num_value_heads; KeyHeads divides ValueHeads.
	KeyHeads   int `json:"key_heads" yaml:"key_heads"`
	ValueHeads int `json:"value_heads" yaml:"value_heads"`
	// KeyHeadDim and ValueHeadDim are linear_key_head_dim and
	// linear_value_head_dim.
	KeyHeadDim   int `json:"key_head_dim" yaml:"key_head_dim"`
	ValueHeadDim int `json:"value_head_dim" yaml:"value_head_dim"`
	// ConvKernel is linear_conv_kernel_dim, the width of the causal
	// convolution over the Q, K and V channels; its state keeps the last
	// ConvKernel − 1 tokens.
	ConvKernel int `json:"conv_kernel" yaml:"conv_kernel"`
	// StateBytes is the size of one element of the recurrent state
	// (mamba_ssm_dtype: 4 for float32); 0 means the activations' ActBytes.
	// The convolution window is kept at ActBytes, the model's dtype.
	StateBytes float64 `json:"state_bytes,omitempty" yaml:"state_bytes,omitempty"`
}

// IsZero reports whether l describes no linear-attention layer.
func (l linearAttention) IsZero() bool { return l == linearAttention{} }

// convDim returns the channels of the short convolution, the query, key and
// value widths 2·n_k·d_k + n_v·d_v.
func (l linearAttention) convDim() float64 {
	return float64(2*l.KeyHeads*l.KeyHeadDim + l.ValueHeads*l.ValueHeadDim)
}

// MatmulParams returns the matmul weight elements of one linear-attention
// layer: the input projection of Q, K, V and the output gate z,
// H·(2·n_k·d_k + 2·n_v·d_v); the projection of the per-head decay and
// write-strength inputs b and a, H·2·n_v; and the output projection
// n_v·d_v·H.
func (l linearAttention) MatmulParams(hidden int) float64 {
	h := float64(hidden)
	qkvz := float64(2*l.KeyHeads*l.KeyHeadDim + 2*l.ValueHeads*l.ValueHeadDim)
	return h*qkvz + h*2*float64(l.ValueHeads) + float64(l.ValueHeads*l.ValueHeadDim)*h
}

// otherParams returns the weights of one linear-attention layer outside its
// matmuls: the convolution's ConvKernel taps per channel, the decay's A_log
// and dt_bias (one a value head each) and the gated RMSNorm over a value
// head (d_v).
func (l linearAttention) otherParams() float64 {
	return l.convDim()*float64(l.ConvKernel) + 2*float64(l.ValueHeads) + float64(l.ValueHeadDim)
}

// stateElems returns the elements of one layer's state for one sequence:
// the convolution window (ConvKernel − 1)·convDim and the recurrent state
// n_v·d_k·d_v, as vLLM's gated_delta_net_state_shape lays them out.
func (l linearAttention) stateElems() (conv, ssm float64) {
	return float64(l.ConvKernel-1) * l.convDim(), float64(l.ValueHeads) * float64(l.KeyHeadDim) * float64(l.ValueHeadDim)
}

// flopsPerToken returns the FLOPs one token costs in one linear-attention
// layer beyond its projections: the convolution, 2·ConvKernel per channel,
// and the delta rule per value head over its d_k × d_v state: decay
// (d_k·d_v), the key's read-out S^T k, the rank-one update and the query's
// read-out (2·d_k·d_v each), 7·d_k·d_v.
func (l linearAttention) flopsPerToken() float64 {
	return 2*float64(l.ConvKernel)*l.convDim() + 7*float64(l.ValueHeads)*float64(l.KeyHeadDim)*float64(l.ValueHeadDim)
}

// attentionLayers returns the layers with softmax attention: all but the
// linear-attention ones.
func (m ModelSpec) attentionLayers() int { return m.Layers - m.Linear.Layers }

// mixerParams returns the matmul weights of every layer's token mixer:
// softmax attention (AttentionParams) and linear attention
// (linearAttention.MatmulParams).
func (m ModelSpec) mixerParams() float64 {
	return float64(m.attentionLayers())*m.attentionParams() + float64(m.Linear.Layers)*m.Linear.MatmulParams(m.Hidden)
}

// StateBytesPerSeq returns the bytes of recurrent state one sequence keeps
// in the linear-attention layers, all ranks together, whatever its length:
// layers · ((ConvKernel − 1)·(2·n_k·d_k + n_v·d_v)·ActBytes +
// n_v·d_k·d_v·StateBytes). It is 0 without linear attention. Qwen3.5-27B
// (48 linear layers, n_k 16, n_v 48, d_k = d_v 128, kernel 4, float32
// state): 48 · (3·10240·2 + 786432·4) = 153.9 MB.
func (m ModelSpec) StateBytesPerSeq() float64 {
	if m.Linear.Layers == 0 {
		return 0
	}
	conv, ssm := m.Linear.stateElems()
	return float64(m.Linear.Layers) * (conv*m.ActBytes + ssm*m.linearStateBytes())
}

func (m ModelSpec) linearStateBytes() float64 {
	if m.Linear.StateBytes > 0 {
		return m.Linear.StateBytes
	}
	return m.ActBytes
}

// validateLinear checks the linear-attention fields through bad.
func (m ModelSpec) validateLinear(bad badField) {
	l := m.Linear
	if l.IsZero() {
		return
	}
	if l.Layers < 1 || (m.Layers > 0 && l.Layers > m.Layers) {
		bad("linear.layers", l.Layers, "must be in [1, layers %d] (or the whole linear block zero: no linear attention)", m.Layers)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"key_heads", l.KeyHeads}, {"value_heads", l.ValueHeads}, {"key_head_dim", l.KeyHeadDim}, {"value_head_dim", l.ValueHeadDim}, {"conv_kernel", l.ConvKernel}} {
		if f.v < 1 {
			bad("linear."+f.name, f.v, "must be >= 1 with linear.layers %d", l.Layers)
		}
	}
	if l.KeyHeads > 0 && l.ValueHeads%l.KeyHeads != 0 {
		bad("linear.key_heads", l.KeyHeads, "must divide linear.value_heads %d", l.ValueHeads)
	}
	if !nonNegativeFinite(l.StateBytes) {
		bad("linear.state_bytes", l.StateBytes, "must be a finite number >= 0 (0: act_bytes)")
	}
	if m.mla() {
		bad("linear.layers", l.Layers, "is set, and linear attention beside MLA is not modelled")
	}
}

// stateShape adds to c what the linear-attention layers cost a step of t
// tokens over seqs sequences, per rank: every scheduled sequence reads its
// state and writes it back (2 × StateBytesPerSeq / TP), and every token
// pays the convolution and the delta rule (linearAttention.flopsPerToken),
// counted with the projections.
func (s *StepModel) stateShape(c *StepCost, t, seqs float64) {
	c.StateBytes = 2 * seqs * s.statePerSeq
	c.ProjFLOPs += t * s.stateFLOPsPerToken
}

// compileLinear fills the step model's linear-attention constants: the
// state one sequence keeps on a rank (the heads and channels split TP
// ways) and the recurrent FLOPs a token costs there.
func (d *Deployment) compileLinear(s *StepModel, r *rankShare) {
	m := &d.Model
	if m.Linear.Layers == 0 {
		return
	}
	p := float64(r.tp)
	s.statePerSeq = m.StateBytesPerSeq() / p
	s.stateFLOPsPerToken = float64(m.Linear.Layers) * m.Linear.flopsPerToken() / p
}

// stateBytesPerSeqPerRank returns the bytes of recurrent state one sequence
// keeps on each rank: ModelSpec.StateBytesPerSeq / TP (vLLM splits the
// linear-attention heads and convolution channels across the ranks).
func (d Deployment) stateBytesPerSeqPerRank() float64 {
	s := d.compile()
	return s.statePerSeq
}

// stateSeqs returns the sequences whose state Memory reserves: StateSeqs,
// or defaultStateSeqs when it is 0.
func (d *Deployment) stateSeqs() int {
	if d.StateSeqs > 0 {
		return d.StateSeqs
	}
	return defaultStateSeqs
}

// defaultStateSeqs is the number of sequences whose linear-attention state
// Memory reserves when Deployment.StateSeqs is 0: vLLM's default
// max_num_seqs.
const defaultStateSeqs = 256

// reserveState takes the recurrent state of the deployment's sequences out
// of m's KV pool, setting StateBytesPerSeq and StateBytes.
func (d *Deployment) reserveState(m *Memory) {
	m.StateBytesPerSeq = d.stateBytesPerSeqPerRank()
	if m.StateBytesPerSeq == 0 {
		return
	}
	m.StateSeqs = d.stateSeqs()
	m.StateBytes = float64(m.StateSeqs) * m.StateBytesPerSeq
	if math.IsInf(m.StateBytes, 0) {
		m.StateBytes = math.MaxFloat64
	}
	m.KVPoolBytes -= m.StateBytes
}
