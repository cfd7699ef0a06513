package scenario

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/hfmodels"
	"github.com/servesim/servesim/internal/nearest"
)

// Model returns the server's model, as `vllm serve` would load it:
//
//   - a local directory holding a Hugging Face config.json, or such a
//     config.json itself (cost.LoadHFConfig);
//   - a model spec file, .json or .yaml, in cost.LoadModel's format;
//   - a Hugging Face id (one with a "/"): its entry in servesim's registry
//     of published configs (hfmodels.Resolve: the exact id
//     case-insensitively, the documented alias rules, and a quantized
//     repackaging such as "RedHatAI/Qwen3-14B-FP8-dynamic" as the
//     registered checkpoint with the quantization its suffix names), else
//     the catalog model whose registry entry names it as its instruct
//     checkpoint ("meta-llama/Llama-2-7b-chat-hf" is llama-2-7b),
//     else the catalog model CatalogName finds in it (a fine-tune named
//     after its base, "NousResearch/Hermes-3-Llama-3.1-8B");
//     an unknown id is an error naming the three nearest registered ids;
//   - a catalog name (cost.ModelNames), matched case-insensitively without
//     the fine-tune, version and quantization suffixes (CatalogName).
//
// Then --quantization, --dtype and --kv-cache-dtype (Quantization, DType,
// KVCacheDType) set its precisions. An unknown name is an error listing
// the nearest catalog names.
func (s *Scenario) Model() (cost.ModelSpec, error) {
	m, implied, err := s.baseModel()
	if err != nil {
		return m, err
	}
	return s.Server.precisions(m, implied)
}

func (s *Scenario) baseModel() (m cost.ModelSpec, implied string, err error) {
	name := s.Server.Model
	if name == "" {
		return m, "", fieldErr("server.model", "is empty: give a catalog name, a Hugging Face id or a model directory")
	}
	path := s.resolve(name)
	if st, err := statFile(path); err == nil && st.IsDir() {
		if _, err := statFile(filepath.Join(path, "config.json")); err != nil {
			return m, "", fieldErr("server.model", "directory %s holds no config.json (a Hugging Face model directory has one)", name)
		}
		m, err := cost.LoadHFConfig(path)
		return m, "", errorf("server.model", err)
	}
	if s.isSpecPath(name) {
		if isHFConfig(path) {
			m, err := cost.LoadHFConfig(path)
			return m, "", errorf("server.model", err)
		}
		m, err := cost.LoadModel(path)
		return m, "", errorf("server.model", err)
	}
	if strings.Contains(name, "/") {
		return hubModel(name)
	}
	catalog, implied := resolveCatalog(name)
	m, err = cost.Model(catalog)
	if errors.Is(err, cost.ErrUnknownName) {
		return m, "", fieldErr("server.model", "unknown model %q (%s; or a local directory with its config.json, or a model spec file, .json or .yaml)",
			name, nearModels(name))
	}
	return m, implied, errorf("server.model", err)
}

// hubModel returns the model of a Hugging Face id: its registry entry
// (hfmodels.Resolve, with the quantization a repackaging's suffix implies),
// else the catalog model whose registry entry names the id as its
// instruct sibling (hfmodels.CatalogFor), else an error naming the nearest
// registered ids.
func hubModel(id string) (cost.ModelSpec, string, error) {
	e, quant, err := hfmodels.Resolve(id)
	if err == nil {
		m, err := e.Model()
		return m, quant, errorf("server.model", err)
	}
	if c, ok := hfmodels.CatalogFor(id); ok {
		m, cerr := cost.Model(c)
		return m, "", errorf("server.model", cerr)
	}
	if c, implied := resolveCatalog(id); c != id {
		m, cerr := cost.Model(c)
		return m, implied, errorf("server.model", cerr)
	}
	return cost.ModelSpec{}, "", fieldErr("server.model", "%v", err)
}

// isHFConfig reports whether the JSON file at path is a Hugging Face
// config.json rather than a cost.ModelSpec: it is called config.json, or
// its object has model_type or hidden_size.
func isHFConfig(path string) bool {
	if filepath.Base(path) == "config.json" {
		return true
	}
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	var keys map[string]json.RawMessage
	if json.NewDecoder(bytes.NewReader(data)).Decode(&keys) != nil {
		return false
	}
	_, mt := keys["model_type"]
	_, hs := keys["hidden_size"]
	return mt || hs
}

// hfSuffixRE matches the fine-tune, version and quantization suffixes of
// Hugging Face model ids: -Instruct, -Chat, -hf, -it, -v0.3, -FP8, -AWQ,
// -GPTQ-Int4 and the like, in any order.
var hfSuffixRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(-(instruct|chat|hf|base|it|fp8(-dynamic)?|awq|gptq(-int4|-int8)?|int4|int8|w4a16|w8a8|bf16)|-v\d+(\.\d+)*)+$`)
})

// quantSuffixes maps a Hugging Face id's quantization suffix to the
// --quantization it implies.
var quantSuffixes = []struct{ suffix, quant string }{
	{"-fp8", "fp8"}, {"-fp8-dynamic", "fp8"}, {"-awq", "awq"}, {"-gptq", "gptq"}, {"-gptq-int4", "gptq"},
	{"-int4", "gptq"}, {"-w4a16", "gptq"}, {"-gptq-int8", "int8"}, {"-int8", "int8"}, {"-w8a8", "int8"},
}

// CatalogName maps a Hugging Face model id, as `vllm serve` and
// `vllm bench serve` take it, to the catalog name of the same
// architecture: the last path element, lower-cased, without fine-tune,
// version and quantization suffixes ("Qwen/Qwen2.5-7B-Instruct" →
// "qwen2.5-7b", "mistralai/Mistral-7B-Instruct-v0.3" → "mistral-7b"); a
// name that holds one catalog name after a fine-tune's prefix maps to it
// ("NousResearch/Hermes-3-Llama-3.1-8B" → "llama-3.1-8b"). Other names are
// returned unchanged.
func CatalogName(name string) string {
	c, _ := resolveCatalog(name)
	return c
}

// resolveCatalog is CatalogName, and the --quantization the id's suffix
// implies ("" for none).
func resolveCatalog(name string) (catalog, quant string) {
	if _, err := cost.Model(name); err == nil {
		return name, ""
	}
	base := strings.ToLower(strings.TrimRight(name, "/"))
	base = base[strings.LastIndex(base, "/")+1:]
	if m := hfSuffixRE().FindString(base); m != "" {
		for _, q := range quantSuffixes {
			if strings.Contains(strings.ToLower(m)+"-", q.suffix+"-") {
				quant = q.quant
			}
		}
		base = strings.TrimSuffix(base, m)
	}
	base = strings.TrimPrefix(base, "meta-")
	if _, err := cost.Model(base); err == nil {
		return base, quant
	}
	// A fine-tune named after its base model: the longest catalog name it
	// ends with after a dash (Hermes-3-Llama-3.1-8B).
	best := ""
	for _, c := range cost.ModelNames() {
		if strings.HasSuffix(base, "-"+c) && len(c) > len(best) {
			best = c
		}
	}
	if best != "" {
		return best, quant
	}
	return name, ""
}

// nearModels lists the catalog names closest to name (edit distance on
// the lower-cased last path element), or all of them when none is close.
func nearModels(name string) string {
	base := strings.ToLower(name[strings.LastIndex(name, "/")+1:])
	base = strings.TrimPrefix(hfSuffixRE().ReplaceAllString(base, ""), "meta-")
	names := cost.ModelNames()
	type scored struct {
		name string
		d    int
	}
	var near []scored
	for _, c := range names {
		d := nearest.EditDistance(base, c)
		if d <= max(3, len(c)/3) || strings.Contains(c, base) || strings.Contains(base, c) {
			near = append(near, scored{c, d})
		}
	}
	if len(near) == 0 {
		return "known: " + strings.Join(names, ", ")
	}
	slices.SortStableFunc(near, func(a, b scored) int { return a.d - b.d })
	out := make([]string, 0, 3)
	for i := 0; i < len(near) && i < 3; i++ {
		out = append(out, near[i].name)
	}
	return "nearest: " + strings.Join(out, ", ") + "; known: " + strings.Join(names, ", ")
}

// Precision names of `vllm serve`: --quantization methods, --dtype and
// --kv-cache-dtype values, each with the precision servesim models it by.
var (
	quantizations = map[string]cost.Precision{
		"fp8": cost.FP8, "fbgemm_fp8": cost.FP8, "ptpc_fp8": cost.FP8, "modelopt": cost.FP8, "fp8_e4m3": cost.FP8,
		"awq": cost.INT4, "awq_marlin": cost.INT4, "gptq": cost.INT4, "gptq_marlin": cost.INT4, "marlin": cost.INT4,
		"gptq_marlin_24": cost.INT4, "bitsandbytes": cost.INT4, "gguf": cost.INT4, "int4": cost.INT4,
		"int8": cost.INT8, "w8a8": cost.INT8, "experts_int8": cost.INT8,
		"mxfp4": cost.MXFP4, "modelopt_fp4": cost.FP4, "nvfp4": cost.FP4,
	}
	dtypes = map[string]cost.Precision{
		"auto": cost.PrecisionUnset, "": cost.PrecisionUnset,
		"half": cost.FP16, "float16": cost.FP16, "fp16": cost.FP16, "bfloat16": cost.BF16, "bf16": cost.BF16,
	}
	kvDtypes = map[string]cost.Precision{
		"auto": cost.PrecisionUnset, "": cost.PrecisionUnset,
		"float16": cost.FP16, "half": cost.FP16, "bfloat16": cost.BF16,
		"fp8": cost.FP8, "fp8_e4m3": cost.FP8, "fp8_e5m2": cost.FP8, "fp8_inc": cost.FP8, "fp8_ds_mla": cost.FP8,
		"fp8_per_token_head": cost.FP8, "int8_per_token_head": cost.INT8, "nvfp4": cost.FP4, "nvfp4_ds_mla": cost.FP4,
	}
)

func precisionNames(m map[string]cost.Precision) string {
	var names []string
	for k := range m {
		if k != "" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// precisions applies --quantization (or the one the model id implies),
// --dtype and --kv-cache-dtype to m.
func (v Server) precisions(m cost.ModelSpec, implied string) (cost.ModelSpec, error) {
	q := strings.ToLower(strings.TrimSpace(v.Quantization))
	if q == "" || q == "none" {
		q = implied
	}
	if q == "compressed-tensors" && checkpointQuantized(m) {
		// the bits come from the checkpoint's quantization_config, at the
		// root or under text_config (Kimi-K2.5), as vLLM reads it
		q = ""
	}
	if q != "" {
		p, ok := quantizations[q]
		if !ok {
			if q == "compressed-tensors" {
				return m, fieldErr("server.quantization", "compressed-tensors: the bits come from the checkpoint: give its directory (--model DIR with config.json) or name the format (fp8, int8, gptq)")
			}
			return m, fieldErr("server.quantization", "%q is not modelled (known: %s)", v.Quantization, precisionNames(quantizations))
		}
		m = m.Quantized(p)
	}
	d, ok := dtypes[strings.ToLower(strings.TrimSpace(v.DType))]
	if !ok {
		if t := strings.ToLower(v.DType); t == "float" || t == "float32" {
			return m, fieldErr("server.dtype", "%q: 32-bit serving is not modelled (known: %s)", v.DType, precisionNames(dtypes))
		}
		if q, ok := quantizations[strings.ToLower(strings.TrimSpace(v.DType))]; ok {
			return m, fieldErr("server.dtype", "%q is not a dtype: --dtype sets the 16-bit activations and unquantized weights (known: %s); %s weights: --quantization %s",
				v.DType, precisionNames(dtypes), strings.ToUpper(q.String()), strings.ToLower(strings.TrimSpace(v.DType)))
		}
		return m, fieldErr("server.dtype", "unknown dtype %q (known: %s)", v.DType, precisionNames(dtypes))
	}
	if d != cost.PrecisionUnset && q == "" && m.WeightBytes >= 2 {
		// unquantized weights in the dtype; experts a checkpoint quantized
		// alone (gpt-oss's MXFP4) stay as they are
		bytes, gemm := m.ExpertWeightBytes, m.ExpertGEMM
		m = m.WithWeights(d)
		if bytes > 0 && bytes < 2 {
			m.ExpertWeightBytes, m.ExpertGEMM = bytes, gemm
		}
	}
	kv, ok := kvDtypes[strings.ToLower(strings.TrimSpace(v.KVCacheDType))]
	if !ok {
		return m, fieldErr("server.kv_cache_dtype", "%q is not modelled (known: %s)", v.KVCacheDType, precisionNames(kvDtypes))
	}
	if kv == cost.PrecisionUnset && d != cost.PrecisionUnset {
		kv = d // auto: the model's dtype
	}
	if kv != cost.PrecisionUnset {
		m = m.WithKVCache(kv)
	}
	if err := m.Validate(); err != nil {
		return m, errorf("server.model", fmt.Errorf("with the precisions asked for: %w", err))
	}
	return m, nil
}

// checkpointQuantized reports whether a model's config quantized its
// weights, all of them or the routed experts.
func checkpointQuantized(m cost.ModelSpec) bool {
	return m.WeightBytes < 2 || (m.ExpertWeightBytes > 0 && m.ExpertWeightBytes < 2)
}
