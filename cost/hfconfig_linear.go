package cost

import "strings"

// linear reads Gated DeltaNet linear attention (Qwen3-Next, Qwen3.5:
// transformers' Qwen3NextConfig and Qwen3_5TextConfig): the layers whose
// layer_types entry is "linear_attention", or, without layer_types, all but
// every full_attention_interval-th layer (layer i is full when
// (i+1) % interval == 0, as transformers builds the list); their
// linear_num_key_heads, linear_num_value_heads, linear_key_head_dim,
// linear_value_head_dim and linear_conv_kernel_dim; the state dtype
// mamba_ssm_dtype (or mamba_ssm_cache_dtype); and attn_output_gate on the
// softmax-attention layers, true by default for the qwen3_next and qwen3_5
// model types, whose attention always gates. A config without linear_*
// fields has no linear attention.
func (c *hfConfig) linear(m *ModelSpec, mt string) {
	gated := strings.HasPrefix(mt, "qwen3_next") || strings.HasPrefix(mt, "qwen3_5")
	m.AttnOutputGate = c.boolean("attn_output_gate", gated)
	if _, ok := c.get("linear_num_value_heads"); !ok {
		return
	}
	l := linearAttention{
		KeyHeads:     c.required("linear_num_key_heads"),
		ValueHeads:   c.required("linear_num_value_heads"),
		KeyHeadDim:   c.required("linear_key_head_dim"),
		ValueHeadDim: c.required("linear_value_head_dim"),
		ConvKernel:   c.required("linear_conv_kernel_dim"),
	}
	if v, ok := c.get("layer_types"); ok {
		list, isList := v.([]any)
		if !isList || len(list) != m.Layers {
			c.bad("field layer_types must list one type per layer (%d layers)", m.Layers)
			return
		}
		for _, t := range list {
			switch s, _ := t.(string); s {
			case "linear_attention":
				l.Layers++
			case "full_attention":
			default:
				c.bad("field layer_types entry %v: want \"linear_attention\" or \"full_attention\"", t)
				return
			}
		}
	} else {
		interval, ok := c.integer("full_attention_interval")
		if !ok || interval < 1 {
			c.bad("field full_attention_interval is missing or 0 (and there is no layer_types): the linear-attention layers cannot be told apart")
			return
		}
		l.Layers = m.Layers - m.Layers/interval
	}
	for _, key := range []string{"mamba_ssm_dtype", "mamba_ssm_cache_dtype"} {
		switch c.str(key) {
		case "float32", "fp32":
			l.StateBytes = 4
		case "bfloat16", "float16", "bf16", "fp16":
			l.StateBytes = 2
		case "", "auto":
			continue
		default:
			c.bad("field %s %q: want float32, bfloat16 or float16", key, c.str(key))
		}
		break
	}
	if l.Layers > 0 {
		m.Linear = l
	}
}
