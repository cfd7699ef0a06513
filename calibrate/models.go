package calibrate

import (
	"encoding/json"
	"io"
	"strings"

	"github.com/servesim/servesim/cost"
)

// qwen3_32B is Qwen/Qwen3-32B in BF16, written from its published
// config.json (shared/data/model_configs/Qwen--Qwen3-32B.json, a copy of
// https://huggingface.co/Qwen/Qwen3-32B/blob/main/config.json): hidden_size
// 5120, intermediate_size 25600, num_hidden_layers 64, num_attention_heads
// 64, num_key_value_heads 8, head_dim 128, vocab_size 151936,
// tie_word_embeddings false, attention_bias false, max_position_embeddings
// 40960. TestQwen3SpecMatchesConfig checks it against the file.
//
// To be replaced by cost.LoadHFConfig once it lands.
var qwen3_32B = cost.ModelSpec{Name: "qwen3-32b", Hidden: 5120, Intermediate: 25600, Layers: 64, Heads: 64,
	KVHeads: 8, HeadDim: 128, Vocab: 151936, MaxContext: 40960, WeightBytes: 2, KVBytes: 2, ActBytes: 2}

// hfModels maps the Hugging Face ids of dense models with a catalog entry
// (or a spec above) to the spec a BF16 deployment of them uses.
func hfModels() map[string]cost.ModelSpec {
	out := map[string]cost.ModelSpec{"Qwen/Qwen3-32B": qwen3_32B}
	for id, name := range map[string]string{
		"meta-llama/Llama-3.1-8B": "llama-3.1-8b", "meta-llama/Llama-3.1-70B": "llama-3.1-70b",
		"meta-llama/Meta-Llama-3.1-8B": "llama-3.1-8b", "meta-llama/Meta-Llama-3.1-70B": "llama-3.1-70b",
		"Qwen/Qwen2.5-7B": "qwen2.5-7b", "Qwen/Qwen2.5-72B": "qwen2.5-72b",
	} {
		if m, err := cost.Model(name); err == nil {
			out[id] = m
		}
	}
	return out
}

// LookupModel returns the BF16 spec of the model with Hugging Face id id
// (case-insensitive; an "-Instruct" suffix is ignored), if this package
// knows it: Qwen/Qwen3-32B and the dense catalog models.
func LookupModel(id string) (cost.ModelSpec, bool) {
	key := strings.TrimSuffix(strings.ToLower(id), "-instruct")
	for k, m := range hfModels() {
		if strings.ToLower(k) == key {
			return m, true
		}
	}
	return cost.ModelSpec{}, false
}

// hfConfig holds the fields of a dense model's Hugging Face config.json
// that a ModelSpec needs.
//
// A minimal private reader, to be replaced by cost.LoadHFConfig once it
// lands; it only checks the hand-written specs above.
type hfConfig struct {
	Hidden       int  `json:"hidden_size"`
	Intermediate int  `json:"intermediate_size"`
	Layers       int  `json:"num_hidden_layers"`
	Heads        int  `json:"num_attention_heads"`
	KVHeads      int  `json:"num_key_value_heads"`
	HeadDim      int  `json:"head_dim"`
	Vocab        int  `json:"vocab_size"`
	MaxPos       int  `json:"max_position_embeddings"`
	Tied         bool `json:"tie_word_embeddings"`
	Bias         bool `json:"attention_bias"`
}

// readHFConfig reads a dense model's config.json into a BF16 ModelSpec
// named name. To be replaced by cost.LoadHFConfig.
func readHFConfig(r io.Reader, name string) (cost.ModelSpec, error) {
	var c hfConfig
	if err := json.NewDecoder(r).Decode(&c); err != nil {
		return cost.ModelSpec{}, invalidf("config.json of %s: %v", name, err)
	}
	if c.HeadDim == 0 && c.Heads > 0 {
		c.HeadDim = c.Hidden / c.Heads
	}
	m := cost.ModelSpec{Name: name, Hidden: c.Hidden, Intermediate: c.Intermediate, Layers: c.Layers, Heads: c.Heads,
		KVHeads: c.KVHeads, HeadDim: c.HeadDim, Vocab: c.Vocab, MaxContext: c.MaxPos, TiedEmbeddings: c.Tied,
		QKVBias: c.Bias, WeightBytes: 2, KVBytes: 2, ActBytes: 2}
	return m, m.Validate()
}
