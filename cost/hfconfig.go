package cost

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// LoadHFConfig reads a Hugging Face config.json, or the config.json inside
// the directory path, with ParseHFConfig. The model is named after the
// directory (or after the file, less ".json", when the file is not called
// config.json). Errors name the file; a missing file matches
// os.ErrNotExist.
func LoadHFConfig(path string) (ModelSpec, error) {
	file := path
	if st, err := os.Stat(path); err != nil {
		return ModelSpec{}, err
	} else if st.IsDir() {
		file = filepath.Join(path, "config.json")
	}
	name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if name == "config" {
		name = filepath.Base(filepath.Dir(file))
	}
	if st, err := os.Stat(file); err == nil && st.Size() > maxHFConfigBytes {
		return ModelSpec{}, within(file, invalidf("hf config: %d bytes exceed the config.json limit of %d bytes (4 MiB; real ones are under 100 kB)", st.Size(), maxHFConfigBytes))
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return ModelSpec{}, err
	}
	m, err := ParseHFConfig(data, name)
	if err != nil {
		return ModelSpec{}, within(file, err)
	}
	return m, nil
}

// ParseHFConfig reads a Hugging Face config.json (docs/cost-model.md#hugging-face-configs)
// into a validated ModelSpec called name (when name is "", the config's
// _name_or_path, else its model_type).
//
// It reads the text model's fields (a nested text_config, as multimodal
// wrappers such as Gemma 3 and Kimi-K2.5 have, takes precedence): the
// required hidden_size, num_hidden_layers, num_attention_heads and
// vocab_size; intermediate_size; num_key_value_heads (default: the heads);
// head_dim (default hidden/heads); tie_word_embeddings; attention_bias (and
// Qwen2's implicit Q/K/V biases); the mixture-of-experts fields
// (num_experts, n_routed_experts, num_local_experts; num_experts_per_tok,
// experts_per_token; moe_intermediate_size; n_shared_experts,
// shared_expert_intermediate_size; first_k_dense_replace, moe_layer_freq,
// decoder_sparse_step, mlp_only_layers; Llama 4's intermediate_size_mlp,
// interleave_moe_layer_step and moe_layers, with its shared expert); the
// MLA fields (kv_lora_rank, q_lora_rank, qk_rope_head_dim,
// qk_nope_head_dim, v_head_dim); sliding windows (layer_types,
// sliding_window, use_sliding_window, sliding_window_pattern; Llama 4's
// chunked attention, attention_chunk_size and no_rope_layers, as windowed
// layers); Gated DeltaNet linear attention (layer_types
// "linear_attention" or full_attention_interval, the linear_* sizes,
// mamba_ssm_dtype, attn_output_gate); the context length as vLLM derives its default
// max_model_len (max_position_embeddings and the other length keys, scaled
// by rope_scaling); and the weight precision from torch_dtype (or dtype)
// and quantization_config (fp8, mxfp4, awq, gptq, compressed-tensors,
// modelopt). An unknown model_type with the standard fields loads.
//
// Errors match ErrInvalidSpec and name the field: a missing required field,
// a value of the wrong type, an unsupported quant_method.
func ParseHFConfig(data []byte, name string) (ModelSpec, error) {
	if len(data) > maxHFConfigBytes {
		return ModelSpec{}, invalidf("hf config: %d bytes exceed the config.json limit of %d bytes (4 MiB; real ones are under 100 kB)", len(data), maxHFConfigBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return ModelSpec{}, invalidf("hf config: %v", err)
	}
	if tok, err := dec.Token(); err != io.EOF {
		return ModelSpec{}, invalidf("hf config: trailing bytes after the JSON object at byte %d (%v %v): a config.json holds one object", dec.InputOffset(), tok, err)
	}
	c := hfConfig{root: root, text: root}
	if tc, ok := root["text_config"].(map[string]any); ok {
		c.text = tc
	}
	if name == "" {
		name = c.str("_name_or_path")
		if name == "" {
			name = c.modelType()
		}
	}
	c.name = name
	m := c.model()
	if len(c.errs) > 0 {
		return ModelSpec{}, errors.Join(c.errs...)
	}
	if err := m.Validate(); err != nil {
		return ModelSpec{}, err
	}
	return m, nil
}

// maxHFConfigBytes is the largest config.json read, bytes: 4 MiB, forty
// times the largest real one.
const maxHFConfigBytes = 4 << 20

// hfConfig reads one config.json, collecting an error per bad field.
type hfConfig struct {
	name string
	root map[string]any // the whole file
	text map[string]any // text_config, or the whole file
	errs []error
}

func (c *hfConfig) bad(format string, args ...any) {
	c.errs = append(c.errs, invalidf("model %q: hf config "+format, append([]any{c.name}, args...)...))
}

// get returns the value of key in the text config, else in the root, and
// whether it is there and not null.
func (c *hfConfig) get(key string) (any, bool) {
	for _, obj := range []map[string]any{c.text, c.root} {
		if v, ok := obj[key]; ok && v != nil {
			return v, true
		}
	}
	return nil, false
}

// num returns the number at key and whether it is there; a value that is
// not a number is an error.
func (c *hfConfig) num(key string) (float64, bool) {
	v, ok := c.get(key)
	if !ok {
		return 0, false
	}
	n, isNum := v.(json.Number)
	if !isNum {
		c.bad("field %s %v must be a number", key, v)
		return 0, false
	}
	f, err := n.Float64()
	if err != nil {
		c.bad("field %s %v must be a number", key, n)
		return 0, false
	}
	return f, true
}

// integer returns the integer at the first of keys present, and whether one
// is; a fractional or negative value is an error.
func (c *hfConfig) integer(keys ...string) (int, bool) {
	for _, key := range keys {
		f, ok := c.num(key)
		if !ok {
			continue
		}
		if f != math.Trunc(f) || f < 0 || f > math.MaxInt32 {
			c.bad("field %s %v must be a whole number >= 0", key, f)
			return 0, false
		}
		return int(f), true
	}
	return 0, false
}

// required returns the integer at key, and an error naming the field when
// it is missing.
func (c *hfConfig) required(key string) int {
	v, ok := c.integer(key)
	if !ok {
		if _, there := c.get(key); !there {
			c.bad("field %s is missing", key)
		}
	}
	return v
}

func (c *hfConfig) str(key string) string {
	v, _ := c.get(key)
	s, _ := v.(string)
	return s
}

func (c *hfConfig) boolean(key string, def bool) bool {
	v, ok := c.get(key)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		c.bad("field %s %v must be true or false", key, v)
		return def
	}
	return b
}

func (c *hfConfig) modelType() string {
	if t, _ := c.text["model_type"].(string); t != "" {
		return t
	}
	t, _ := c.root["model_type"].(string)
	return t
}

// model builds the spec; problems go to c.errs.
func (c *hfConfig) model() ModelSpec {
	mt := c.modelType()
	m := ModelSpec{
		Name:     c.name,
		Hidden:   c.required("hidden_size"),
		Layers:   c.required("num_hidden_layers"),
		Heads:    c.required("num_attention_heads"),
		Vocab:    c.required("vocab_size"),
		ActBytes: 2,
	}
	if kv, ok := c.integer("num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num"); ok {
		m.KVHeads = kv
	} else {
		m.KVHeads = m.Heads
	}
	if hd, ok := c.integer("head_dim"); ok {
		m.HeadDim = hd
	} else if m.Heads > 0 {
		m.HeadDim = m.Hidden / m.Heads
	}
	m.TiedEmbeddings = c.boolean("tie_word_embeddings", strings.HasPrefix(mt, "gemma"))
	m.QKVBias = c.boolean("attention_bias", false) || c.boolean("qkv_bias", false) || strings.HasPrefix(mt, "qwen2")
	m.MaxContext = c.maxContext(mt)
	c.moe(&m)
	if i, ok := c.integer("intermediate_size"); ok {
		m.Intermediate = i
	} else if m.Experts > 0 && m.DenseLayers == 0 {
		m.Intermediate = m.ExpertIntermediate // no dense MLP to size
	} else if _, there := c.get("intermediate_size"); !there {
		c.bad("field intermediate_size is missing")
	}
	if m.Experts > 0 && m.ExpertIntermediate == 0 {
		m.ExpertIntermediate = m.Intermediate
		if m.SharedIntermediate == 0 {
			if n, ok := c.integer("n_shared_experts"); ok {
				m.SharedIntermediate = n * m.Intermediate
			}
		}
	}
	c.llama4(&m)
	c.mla(&m)
	c.sliding(&m, mt)
	c.linear(&m, mt)
	c.chunked(&m)
	c.precision(&m)
	return m
}

// llama4 reads Llama 4's interleaved mixture of experts
// (transformers' Llama4TextConfig): intermediate_size is the width of each
// routed expert and of the one shared expert every MoE layer has,
// intermediate_size_mlp the width of the dense layers' MLP; the MoE layers
// are moe_layers when listed, else every interleave_moe_layer_step-th
// (default 1: every layer), counting from layer step-1. It applies only to
// a config with intermediate_size_mlp and routed experts.
func (c *hfConfig) llama4(m *ModelSpec) {
	mlp, ok := c.integer("intermediate_size_mlp")
	if !ok || m.Experts == 0 {
		return
	}
	if _, there := c.get("moe_intermediate_size"); !there {
		m.ExpertIntermediate = m.Intermediate
		m.SharedIntermediate = m.Intermediate
	}
	m.Intermediate = mlp
	moe := 0
	if v, ok := c.get("moe_layers"); ok {
		list, isList := v.([]any)
		if !isList {
			c.bad("field moe_layers %v must be a list of layer indices", v)
			return
		}
		seen := map[int64]bool{}
		for _, x := range list {
			n, isNum := x.(json.Number)
			i, err := n.Int64()
			if !isNum || err != nil || i < 0 || i >= int64(m.Layers) {
				c.bad("field moe_layers entry %v must be a layer index from 0 to %d (num_hidden_layers - 1)", x, m.Layers-1)
				return
			}
			if !seen[i] {
				seen[i] = true
				moe++
			}
		}
	} else {
		step, ok := c.integer("interleave_moe_layer_step")
		if !ok || step == 0 {
			step = 1
		}
		for i := step - 1; i < m.Layers; i += step {
			moe++
		}
	}
	m.DenseLayers = m.Layers - moe
}

func isEmptyList(v any) bool {
	l, ok := v.([]any)
	return ok && len(l) == 0
}

// chunked reads chunked local attention (Llama 4's attention_chunk_size):
// a layer that uses RoPE attends within its chunk, which vLLM's KV cache
// holds as a window of attention_chunk_size tokens; the layers without RoPE
// (no_rope_layers entries 0; when the list is absent or empty, every
// no_rope_layer_interval-th, default 4) attend globally. Chunks are counted as SlidingLayers with the chunk as
// SlidingWindow; a config that also sets sliding_window keeps its window.
func (c *hfConfig) chunked(m *ModelSpec) {
	w, ok := c.integer("attention_chunk_size")
	if !ok || w == 0 || m.SlidingWindow > 0 {
		return
	}
	n := 0
	if v, ok := c.get("no_rope_layers"); ok && !isEmptyList(v) { // [] means the default, as in transformers
		list, isList := v.([]any)
		if !isList || len(list) != m.Layers {
			c.bad("field no_rope_layers must list one 0 or 1 per layer (%d layers)", m.Layers)
			return
		}
		for _, x := range list {
			if s, _ := x.(json.Number); s.String() != "0" {
				n++
			}
		}
	} else {
		interval, ok := c.integer("no_rope_layer_interval")
		if !ok || interval == 0 {
			interval = 4
		}
		n = m.Layers - m.Layers/interval
	}
	if n > 0 {
		m.SlidingLayers, m.SlidingWindow = n, w
	}
}

// maxContext returns vLLM's default max_model_len for the config (its
// _get_and_verify_max_len, vllm/config/model.py, and
// derive_max_model_len_info, vllm/transformers_utils/model_arch_config_convertor.py):
// the smallest of the length keys; model_max_length overrides it; with
// rope_scaling (or rope_parameters) of a type other than su, longrope and
// llama3, the length is multiplied by the factor, after being replaced by
// original_max_position_embeddings for yarn; Gemma 3's length is already
// scaled. For longrope the default is original_max_position_embeddings. It
// returns 0 when no key is present (vLLM would assume 2048).
// maxContextLimit is the longest context a config may derive, tokens:
// 2^30, as workload.MaxTokens (no model reaches 2^24).
const maxContextLimit = 1 << 30

// maxContext is maxContextRaw checked: a negative, NaN or overflowing
// length (a huge rope factor) is an error naming the fields.
func (c *hfConfig) maxContext(mt string) int {
	v := c.maxContextRaw(mt)
	if !(v >= 0 && v <= maxContextLimit) {
		c.bad("field max_position_embeddings (times rope_scaling.factor) gives a context of %v tokens: want 0 to %d", v, maxContextLimit)
		return 0
	}
	return int(v)
}

func (c *hfConfig) maxContextRaw(mt string) float64 {
	derived := math.Inf(1)
	for _, key := range []string{"max_position_embeddings", "n_positions", "max_seq_len", "seq_length",
		"model_max_length", "max_target_positions", "max_sequence_length", "max_seq_length", "seq_len"} {
		if v, ok := c.num(key); ok {
			derived = math.Min(derived, v)
		}
	}
	if v, ok := c.num("model_max_length"); ok && v > 0 {
		derived = v
	}
	if math.IsInf(derived, 1) {
		return 0
	}
	rope, _ := c.get("rope_scaling")
	params, _ := rope.(map[string]any)
	if params == nil {
		rp, _ := c.get("rope_parameters")
		params, _ = rp.(map[string]any)
	}
	if params == nil {
		return derived
	}
	ropeType, _ := params["rope_type"].(string)
	if ropeType == "" {
		ropeType, _ = params["type"].(string) // the older key
	}
	if ropeType == "longrope" {
		if v, ok := c.num("original_max_position_embeddings"); ok {
			return v
		}
		if v, ok := params["original_max_position_embeddings"].(json.Number); ok {
			f, _ := v.Float64()
			return f
		}
		return derived
	}
	if strings.Contains(mt, "gemma3") || ropeType == "su" || ropeType == "llama3" {
		return derived
	}
	factor := 1.0
	if f, ok := params["factor"].(json.Number); ok {
		factor, _ = f.Float64()
	}
	if ropeType == "yarn" {
		if v, ok := params["original_max_position_embeddings"].(json.Number); ok {
			derived, _ = v.Float64()
		}
	}
	return derived * factor
}

// moe reads the mixture-of-experts fields, in vLLM's order of expert-count
// keys (get_num_experts).
func (c *hfConfig) moe(m *ModelSpec) {
	e, ok := c.integer("num_experts", "moe_num_experts", "n_routed_experts", "num_local_experts")
	if !ok || e == 0 {
		return
	}
	m.Experts = e
	if k, ok := c.integer("num_experts_per_tok", "experts_per_token", "num_experts_per_token"); ok {
		m.ExpertsPerToken = k
	} else {
		c.bad("field num_experts_per_tok is missing (experts %d)", e)
	}
	if w, ok := c.integer("moe_intermediate_size"); ok {
		m.ExpertIntermediate = w
		if n, ok := c.integer("n_shared_experts"); ok {
			m.SharedIntermediate = n * w
		}
	}
	if w, ok := c.integer("shared_expert_intermediate_size", "shared_intermediate_size"); ok && w > 0 {
		m.SharedIntermediate = w
	}
	m.DenseLayers = m.Layers - c.moeLayerCount(m.Layers)
	m.RoutingSkew = routingSkewMoE
	if _, mla := c.integer("kv_lora_rank"); mla {
		m.RoutingSkew = routingSkewDeepSeek
	}
}

// The power-law exponents of the experts' loads (ModelSpec.RoutingSkew)
// aiconfigurator's estimator assumes at ai-dynamo/aiconfigurator@095f58a5
// (aic-core/src/aiconfigurator_core/sdk/models/): 1.01 for its DeepSeek
// family (deepseek.py; Kimi-K2 and other MLA models), 1.2 for its generic
// MoE model (moe.py: Qwen3-MoE, Mixtral, MiniMax-M2, gpt-oss). Its other
// model classes with 1.01 (gemma4.py, hybrid_moe.py, nemotron_h.py,
// minimax_m3.py) have no MLA and get 1.2 here.
const (
	routingSkewDeepSeek = 1.01
	routingSkewMoE      = 1.2
)

// moeLayerCount returns how many of layers have a mixture of experts:
// DeepSeek's first_k_dense_replace and moe_layer_freq (layer i is MoE when
// i ≥ k and i mod freq = 0), else Qwen-MoE's decoder_sparse_step and
// mlp_only_layers (layer i is MoE when (i+1) mod step = 0 and i is not
// listed), else every layer.
func (c *hfConfig) moeLayerCount(layers int) int {
	first, hasFirst := c.integer("first_k_dense_replace")
	freq, _ := c.integer("moe_layer_freq")
	step, _ := c.integer("decoder_sparse_step")
	dense := map[int]bool{}
	if v, ok := c.get("mlp_only_layers"); ok {
		list, isList := v.([]any)
		if !isList {
			c.bad("field mlp_only_layers %v must be a list of layer indices", v)
		}
		for _, x := range list {
			if n, ok := x.(json.Number); ok {
				i, _ := n.Int64()
				dense[int(i)] = true
			}
		}
	}
	count := 0
	for i := range layers {
		switch {
		case hasFirst:
			if i >= first && (freq <= 1 || i%freq == 0) {
				count++
			}
		case !dense[i] && (step <= 1 || (i+1)%step == 0):
			count++
		}
	}
	return count
}

// mla reads the multi-head latent attention fields when kv_lora_rank is
// set.
func (c *hfConfig) mla(m *ModelSpec) {
	r, ok := c.integer("kv_lora_rank")
	if !ok || r == 0 {
		return
	}
	m.KVLoRARank = r
	m.QLoRARank, _ = c.integer("q_lora_rank")
	for _, f := range []struct {
		key string
		dst *int
	}{{"qk_rope_head_dim", &m.QKRopeHeadDim}, {"qk_nope_head_dim", &m.QKNopeHeadDim}, {"v_head_dim", &m.VHeadDim}} {
		*f.dst = c.required(f.key)
	}
	m.HeadDim = m.QKNopeHeadDim + m.QKRopeHeadDim
}

// sliding reads which layers attend within a window: layer_types when given
// ("sliding_attention" entries); else none when use_sliding_window is false;
// else, with a sliding_window, every other layer for Gemma 2, all but every
// sliding_window_pattern-th (default 6) for Gemma 3, and every layer
// otherwise (Mistral 7B v0.1, Phi-3).
func (c *hfConfig) sliding(m *ModelSpec, mt string) {
	w, ok := c.integer("sliding_window")
	if !ok || w == 0 {
		return
	}
	if v, ok := c.get("layer_types"); ok {
		list, _ := v.([]any)
		n := 0
		for _, t := range list {
			if s, _ := t.(string); s == "sliding_attention" {
				n++
			}
		}
		m.SlidingLayers, m.SlidingWindow = n, w
		if n == 0 {
			m.SlidingWindow = 0
		}
		return
	}
	if !c.boolean("use_sliding_window", true) {
		return
	}
	switch {
	case strings.HasPrefix(mt, "gemma2"):
		m.SlidingLayers = (m.Layers + 1) / 2 // even layers slide
	case strings.HasPrefix(mt, "gemma3"):
		pattern, ok := c.integer("sliding_window_pattern")
		if !ok || pattern == 0 {
			pattern = 6
		}
		m.SlidingLayers = m.Layers - m.Layers/pattern
	default:
		m.SlidingLayers = m.Layers
	}
	m.SlidingWindow = w
}

// precision sets the weight, embedding, expert and KV widths and the GEMM
// precision from torch_dtype and quantization_config.
func (c *hfConfig) precision(m *ModelSpec) {
	dtype := c.str("torch_dtype")
	if dtype == "" {
		dtype = c.str("dtype")
	}
	switch dtype {
	case "", "auto", "bfloat16", "bf16", "float16", "fp16", "half", "float32", "fp32", "float":
	default:
		c.bad("field torch_dtype %q is not a checkpoint dtype (bfloat16, float16, float32; quantization is quantization_config's)", dtype)
	}
	m.GEMM = BF16
	if dtype == "float16" || dtype == "float32" || dtype == "fp16" || dtype == "half" || dtype == "fp32" || dtype == "float" { // vLLM's "auto" runs FP32 checkpoints in FP16
		m.GEMM = FP16
	}
	m.WeightBytes, m.KVBytes = 2, 2
	q := c.quantization()
	if q == nil {
		return
	}
	qp := c.quantPrecision(q)
	if qp.bytes == 0 {
		return
	}
	m.EmbeddingBytes = m.WeightBytes
	if qp.attentionKept && m.Experts > 0 {
		// attention and other dense weights stay 16-bit, and so do their GEMMs
		m.ExpertWeightBytes, m.ExpertGEMM = qp.bytes, qp.gemm
	} else {
		m.WeightBytes, m.GEMM = qp.bytes, qp.gemm
	}
	if qp.kvBytes > 0 {
		m.KVBytes = qp.kvBytes
	}
}

// quantization returns quantization_config (or compression_config), from
// the root and then the text config, as vLLM looks for it.
func (c *hfConfig) quantization() map[string]any {
	for _, obj := range []map[string]any{c.root, c.text} {
		for _, key := range []string{"quantization_config", "compression_config"} {
			switch q := obj[key].(type) {
			case map[string]any:
				return q
			case nil:
			default:
				c.bad("field %s is %s, want an object ({\"quant_method\": ...})", key, jsonKind(q))
				return nil
			}
		}
	}
	return nil
}

// jsonKind names the JSON type of a decoded value, for errors.
func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "not an object"
}

// quantResult is what a quantization_config means for the cost model.
type quantResult struct {
	bytes         float64   // bytes per quantized weight, scales included
	gemm          Precision // the precision its GEMMs run at
	attentionKept bool      // attention is listed as not converted
	kvBytes       float64   // KV-cache element size when the config sets it
}

// quantPrecision reads one quantization_config.
func (c *hfConfig) quantPrecision(q map[string]any) quantResult {
	method, _ := q["quant_method"].(string)
	method = strings.ReplaceAll(strings.ToLower(method), "_", "-")
	var r quantResult
	if prod, ok := q["producer"].(map[string]any); ok && prod["name"] == "modelopt" {
		method = "modelopt"
	}
	switch method {
	case "fp8", "fbgemm-fp8", "ptpc-fp8":
		r.bytes, r.gemm = FP8.Bytes(), FP8
	case "mxfp4":
		r.bytes, r.gemm = MXFP4.Bytes(), MXFP4
	case "awq", "gptq", "awq-marlin", "gptq-marlin":
		bits := qInt(q, 4, "bits", "w_bit")
		group := qInt(q, 128, "group_size", "q_group_size")
		if bits < 2 || bits > 8 {
			c.bad("field quantization_config.bits %d must be from 2 to 8 (%s packs 2-, 3-, 4- or 8-bit weights)", bits, method)
			return quantResult{}
		}
		if group == 0 || group < -1 {
			c.bad("field quantization_config.group_size %d must be -1 (per channel) or >= 1", group)
			return quantResult{}
		}
		zero := qBool(q, "zero_point", method != "gptq" && method != "gptq-marlin") || !qBool(q, "sym", true)
		r.bytes = groupBits(bits, group, 16, zero) / 8
		r.gemm = INT4
		if bits != 4 {
			r.gemm = BF16 // weight-only: 16-bit GEMMs
		}
	case "compressed-tensors":
		r = c.compressedTensors(q)
	case "modelopt", "modelopt-fp4":
		r = c.modelOpt(q)
	case "":
		c.bad("field quantization_config.quant_method is missing")
		return r
	default:
		c.bad("field quantization_config.quant_method %q is not modelled (fp8, mxfp4, awq, gptq, compressed-tensors, modelopt)", method)
		return r
	}
	for _, key := range []string{"modules_to_not_convert", "ignore", "exclude_modules", "ignored_layers"} {
		list, _ := q[key].([]any)
		for _, x := range list {
			s, _ := x.(string)
			if (strings.Contains(s, "self_attn") || strings.Contains(s, "attn.") || strings.HasSuffix(s, "attn")) &&
				!strings.Contains(s, "norm") {
				r.attentionKept = true
			}
		}
	}
	return r
}

// compressedTensors reads a compressed-tensors config: its first config
// group's weights (num_bits, type, group_size, strategy, symmetric) and
// input_activations, and kv_cache_scheme.
func (c *hfConfig) compressedTensors(q map[string]any) quantResult {
	var r quantResult
	groups, _ := q["config_groups"].(map[string]any)
	names := make([]string, 0, len(groups))
	for k := range groups {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) == 0 {
		c.bad("field quantization_config.config_groups is missing")
		return r
	}
	g, _ := groups[names[0]].(map[string]any)
	w, _ := g["weights"].(map[string]any)
	a, _ := g["input_activations"].(map[string]any)
	bits := qInt(w, 0, "num_bits")
	typ, _ := w["type"].(string)
	abits := qInt(a, 16, "num_bits")
	group := qInt(w, 0, "group_size")
	if strategy, _ := w["strategy"].(string); strategy != "group" && strategy != "tensor_group" {
		group = 0 // per-channel or per-tensor scales: negligible
	}
	switch {
	case typ == "float" && bits == 8:
		r.bytes, r.gemm = FP8.Bytes(), FP8
		if abits > 8 {
			r.gemm = BF16 // FP8 weight-only
		}
	case typ == "float" && bits == 4: // NVFP4: FP8 scale per 16
		r.bytes = groupBits(4, max(group, 16), 8, false) / 8
		r.gemm = FP4
		if abits > 4 {
			r.gemm = BF16
		}
	case typ == "int" && (bits < 2 || bits > 8):
		c.bad("field quantization_config weights num_bits %d must be from 2 to 8", bits)
	case typ == "int":
		r.bytes = groupBits(bits, group, 16, !qBool(w, "symmetric", true)) / 8
		switch {
		case bits == 8 && abits == 8:
			r.gemm = INT8
		case bits == 4:
			r.gemm = INT4
		default:
			r.gemm = BF16
		}
	default:
		c.bad("quantization_config weights type %q with num_bits %d is not modelled", typ, bits)
	}
	if kv, ok := q["kv_cache_scheme"].(map[string]any); ok && qInt(kv, 16, "num_bits") == 8 {
		r.kvBytes = 1
	}
	return r
}

// modelOpt reads NVIDIA ModelOpt's quant_algo (FP8 or NVFP4).
func (c *hfConfig) modelOpt(q map[string]any) quantResult {
	algo, _ := q["quant_algo"].(string)
	if inner, ok := q["quantization"].(map[string]any); ok && algo == "" {
		algo, _ = inner["quant_algo"].(string)
	}
	switch strings.ToUpper(algo) {
	case "FP8", "FP8_PER_CHANNEL_PER_TOKEN", "FP8_PB_WO":
		return quantResult{bytes: FP8.Bytes(), gemm: FP8}
	case "NVFP4":
		return quantResult{bytes: FP4.Bytes(), gemm: FP4}
	}
	c.bad("field quantization_config quant_algo %q is not modelled (FP8, NVFP4)", algo)
	return quantResult{}
}

// groupBits returns the bits per weight of bits-bit values quantized in
// groups of group with a scaleBits scale each and, with zero, a bits-bit
// zero point each; group ≤ 0 means per-channel scales, counted as none.
func groupBits(bits, group, scaleBits int, zero bool) float64 {
	b := float64(bits)
	if group <= 0 {
		return b
	}
	extra := float64(scaleBits)
	if zero {
		extra += float64(bits)
	}
	return b + extra/float64(group)
}

func qInt(obj map[string]any, def int, keys ...string) int {
	for _, k := range keys {
		if n, ok := obj[k].(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return int(i)
			}
		}
	}
	return def
}

func qBool(obj map[string]any, key string, def bool) bool {
	if b, ok := obj[key].(bool); ok {
		return b
	}
	return def
}
