package cost

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hybridConfig is a small Qwen3-Next-style config.json: four layers, every
// fourth full attention (full_attention_interval, no layer_types), two
// key heads and four value heads of 64 for the linear layers.
const hybridConfig = `{"model_type":"qwen3_next","hidden_size":512,"num_hidden_layers":4,
"num_attention_heads":8,"num_key_value_heads":2,"head_dim":64,"intermediate_size":1024,
"vocab_size":1000,"max_position_embeddings":4096,"torch_dtype":"bfloat16",
"full_attention_interval":4,"linear_num_key_heads":2,"linear_num_value_heads":4,
"linear_key_head_dim":64,"linear_value_head_dim":64,"linear_conv_kernel_dim":4}`

func TestHFLinearAttention(t *testing.T) {
	t.Parallel()
	m, err := ParseHFConfig([]byte(hybridConfig), "hybrid")
	require.NoError(t, err)
	assert.Equal(t, linearAttention{Layers: 3, KeyHeads: 2, ValueHeads: 4, KeyHeadDim: 64, ValueHeadDim: 64, ConvKernel: 4}, m.Linear)
	assert.True(t, m.AttnOutputGate, "qwen3_next gates its attention output by default")
	// KV cache: the one full layer only, 2·1·(2·64)·2 bytes.
	assert.Equal(t, 512.0, m.KVBytesPerToken())
	// State by hand: conv channels 2·2·64 + 4·64 = 512, window 3 tokens,
	// 1536 elements at 2 bytes; recurrent 4·64·64 = 16384 elements at 2
	// bytes (no mamba_ssm_dtype): 3 layers · (3072 + 32768) = 107520.
	assert.Equal(t, 107520.0, m.StateBytesPerSeq())

	// layer_types, when listed, decide; a float32 state doubles the
	// recurrent part: 2 layers · (3072 + 65536) = 137216.
	withTypes := `{"model_type":"qwen3_5_text","hidden_size":512,"num_hidden_layers":4,"num_attention_heads":8,
"num_key_value_heads":2,"head_dim":64,"intermediate_size":1024,"vocab_size":1000,"max_position_embeddings":4096,
"layer_types":["linear_attention","full_attention","linear_attention","full_attention"],"mamba_ssm_dtype":"float32",
"linear_num_key_heads":2,"linear_num_value_heads":4,"linear_key_head_dim":64,"linear_value_head_dim":64,"linear_conv_kernel_dim":4}`
	m2, err := ParseHFConfig([]byte(withTypes), "typed")
	require.NoError(t, err)
	assert.Equal(t, 2, m2.Linear.Layers)
	assert.Equal(t, 137216.0, m2.StateBytesPerSeq())

	for _, tt := range []struct{ name, edit, msg string }{
		{"no interval", `"full_attention_interval":4`, "full_attention_interval is missing"},
		{"heads", `"linear_num_key_heads":2`, "linear_num_key_heads is missing"},
	} {
		bad := []byte(replaceOnce(t, hybridConfig, tt.edit+",", ""))
		_, err := ParseHFConfig(bad, tt.name)
		require.ErrorIs(t, err, ErrInvalidSpec, tt.name)
		assert.Contains(t, err.Error(), tt.msg, tt.name)
	}
	_, err = ParseHFConfig([]byte(replaceOnce(t, withTypes, `"full_attention"]`, `"mamba"]`)), "bad type")
	assert.ErrorContains(t, err, `layer_types entry mamba: want "linear_attention" or "full_attention"`)
}

func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	i := strings.Index(s, old)
	require.GreaterOrEqual(t, i, 0, "%q not in the config", old)
	return s[:i] + new + s[i+len(old):]
}

// The state is per sequence: a decode step's state traffic grows with the
// sequences, not with their context, and the KV reads cover the full
// layers only; Memory takes StateSeqs states out of the pool.
func TestLinearAttentionStepAndMemory(t *testing.T) {
	t.Parallel()
	m, err := ParseHFConfig([]byte(hybridConfig), "hybrid")
	require.NoError(t, err)
	d := Deployment{Model: m, GPU: mustGPU(t, "h100-sxm"), TP: 2, KVCacheMemory: 1 << 30, StateSeqs: 100}
	require.NoError(t, d.Validate())
	assert.Equal(t, 107520.0/2, d.stateBytesPerSeqPerRank())

	sm, err := d.Compile()
	require.NoError(t, err)
	short, long := sm.Step(DecodeBatch(8, 100)), sm.Step(DecodeBatch(8, 10000))
	assert.Equal(t, 2*8*107520.0/2, short.StateBytes, "each sequence reads and writes its rank's state")
	assert.Equal(t, short.StateBytes, long.StateBytes)
	assert.Equal(t, 8*100*512.0/2, short.KVReadBytes)
	assert.Equal(t, short.WeightBytes+short.KVReadBytes+short.StateBytes, short.Bytes)
	more := sm.Step(DecodeBatch(16, 100))
	assert.Equal(t, 2*short.StateBytes, more.StateBytes)

	mem, err := d.Memory(16)
	require.NoError(t, err)
	assert.Equal(t, 100, mem.StateSeqs)
	assert.Equal(t, 100*107520.0/2, mem.StateBytes)
	assert.Equal(t, float64(1<<30)-mem.StateBytes, mem.KVPoolBytes)
	assert.Equal(t, int((float64(1<<30)-mem.StateBytes)/(16*256)), mem.KVBlocks)

	d.StateSeqs = 0
	mem, err = d.Memory(16)
	require.NoError(t, err)
	assert.Equal(t, defaultStateSeqs, mem.StateSeqs)

	d.StateSeqs = -1
	requireProblem(t, d.Validate(), "state_seqs", -1, "must be >= 0")
}

func TestLinearAttentionValidate(t *testing.T) {
	t.Parallel()
	m, err := ParseHFConfig([]byte(hybridConfig), "hybrid")
	require.NoError(t, err)
	for _, tt := range []struct {
		name  string
		edit  func(*ModelSpec)
		field string
		value any
		limit string
	}{
		{"too many layers", func(m *ModelSpec) { m.Linear.Layers = 5 }, "linear.layers", 5, "must be in [1, layers 4]"},
		{"zero heads", func(m *ModelSpec) { m.Linear.ValueHeads = 0 }, "linear.value_heads", 0, "must be >= 1"},
		{"heads do not divide", func(m *ModelSpec) { m.Linear.ValueHeads = 3 }, "linear.key_heads", 2, "must divide linear.value_heads 3"},
		{"negative state", func(m *ModelSpec) { m.Linear.StateBytes = -1 }, "linear.state_bytes", -1, "must be a finite number >= 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := m
			tt.edit(&b)
			requireProblem(t, b.Validate(), tt.field, tt.value, tt.limit)
		})
	}
}
