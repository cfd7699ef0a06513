package specdecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
)

// ErrInvalid is matched (errors.Is) by every error of Parse and
// Config.Validate; each is a *fielderr.Error at field
// "speculative_config" whose message names the key inside it.
var ErrInvalid = errors.New("specdecode: invalid speculative config")

// invalidf returns an ErrInvalid error at speculative_config.
func invalidf(format string, args ...any) error {
	return errmark.With(ErrInvalid, fielderr.New("speculative_config", nil, format, args...))
}

// Method is how the draft tokens are proposed: vLLM's
// SpeculativeConfig.method.
type Method string

// The proposers vLLM v1 runs (vllm/config/speculative.py,
// vllm/v1/spec_decode). The MTP family covers every per-model alias vLLM
// accepts (deepseek_mtp, qwen3_next_mtp, glm4_moe_mtp, mimo_mtp,
// ernie_mtp, longcat_flash_mtp); Parse maps them to MTP.
const (
	// Eagle is EAGLE-1/2: one decoder layer on the target's hidden states
	// and the target's LM head.
	Eagle Method = "eagle"
	// Eagle3 is EAGLE-3: one decoder layer fed three of the target's
	// hidden states, with its own (usually reduced) draft vocabulary.
	Eagle3 Method = "eagle3"
	// MTP is the model's own multi-token-prediction module(s): a full
	// decoder block of the target (MoE included) and the shared LM head.
	MTP Method = "mtp"
	// Ngram is prompt lookup: the draft is the continuation of the latest
	// n-gram match in the request's own tokens, found on the CPU.
	Ngram Method = "ngram"
	// Medusa is k extra heads (a residual block and an LM head each) on
	// the target's last hidden state, all run in one pass.
	Medusa Method = "medusa"
	// Suffix is suffix decoding (Arctic Inference): the draft comes from
	// a suffix tree of the request's and earlier outputs, on the CPU,
	// priced as Ngram.
	Suffix Method = "suffix"
	// DraftModel is a separate smaller model of the same vocabulary, run
	// k times per step (vLLM's "draft_model"; the method vLLM infers when
	// only a model is given).
	DraftModel Method = "draft_model"
)

// mtpAliases are vLLM's per-model names of the MTP proposer.
var mtpAliases = []string{"deepseek_mtp", "qwen3_next_mtp", "glm4_moe_mtp", "mimo_mtp",
	"ernie_mtp", "longcat_flash_mtp", "pangu_ultra_moe_mtp", "qwen3_5_mtp"}

// Methods lists the accepted method names (aliases included).
func Methods() []string {
	out := []string{string(Eagle), string(Eagle3), string(MTP), string(Ngram), string(Suffix), string(Medusa), string(DraftModel)}
	return append(out, mtpAliases...)
}

// MaxSpeculativeTokens bounds num_speculative_tokens: vLLM runs chains of
// a handful of tokens; past this the per-position tables and the budget
// check make no sense.
const MaxSpeculativeTokens = 64

// Config is vLLM's --speculative-config JSON object, with servesim's
// acceptance model beside vLLM's own fields. vLLM's fields keep their
// names; fields vLLM has but that change nothing here (quantization,
// revision, ...) are accepted by Parse and ignored; unknown fields are an
// error.
//
// Exactly one acceptance source must be given: AcceptanceRates (vLLM's
// per-position acceptance rates, as its spec-decode metrics print them),
// AcceptanceRate (one i.i.d. rate α per draft token), or
// AcceptanceDataset (a row of the built-in table, DefaultTable).
type Config struct {
	// Method is the proposer; "" with Model set means DraftModel, as in
	// vLLM.
	Method Method `json:"method,omitempty" yaml:"method,omitempty"`
	// Model is the draft: for DraftModel a catalog model name (its shape
	// prices the proposals); for EAGLE/MTP/Medusa the head's checkpoint,
	// kept for reports (the head's shape follows the target's).
	Model string `json:"model,omitempty" yaml:"model,omitempty"`
	// NumSpeculativeTokens is k, the draft tokens proposed per sequence
	// per step (required, 1..MaxSpeculativeTokens).
	NumSpeculativeTokens int `json:"num_speculative_tokens" yaml:"num_speculative_tokens"`
	// DraftTensorParallelSize is the draft's TP; 0 means the target's. vLLM
	// accepts 1 or the target's TP.
	DraftTensorParallelSize int `json:"draft_tensor_parallel_size,omitempty" yaml:"draft_tensor_parallel_size,omitempty"`
	// PromptLookupMax and PromptLookupMin bound the n-gram sizes Ngram
	// matches; they are checked (min <= max) but change nothing here: the
	// n-gram proposer's CPU time is NgramSecondsPerSeq whatever they are.
	PromptLookupMax int `json:"prompt_lookup_max,omitempty" yaml:"prompt_lookup_max,omitempty"`
	PromptLookupMin int `json:"prompt_lookup_min,omitempty" yaml:"prompt_lookup_min,omitempty"`

	// AcceptanceRates are the per-position acceptance rates r_1 ≥ r_2 ≥
	// … ≥ r_k in [0, 1], vLLM's "Per-position acceptance rate": r_i is
	// the fraction of drafts whose first i tokens were all accepted. At
	// most k entries; positions past the list are never accepted.
	AcceptanceRates []float64 `json:"acceptance_rates,omitempty" yaml:"acceptance_rates,omitempty"`
	// AcceptanceRate is α: each draft token is accepted with probability
	// α given the ones before it were, so r_i = α^i and the mean
	// acceptance length is (1 − α^(k+1)) / (1 − α).
	AcceptanceRate *float64 `json:"acceptance_rate,omitempty" yaml:"acceptance_rate,omitempty"`
	// AcceptanceDataset names a row of DefaultTable (with Method): its
	// measured per-position rates.
	AcceptanceDataset string `json:"acceptance_dataset,omitempty" yaml:"acceptance_dataset,omitempty"`
}

// ignoredFields are vLLM SpeculativeConfig fields Parse accepts without
// effect on the simulation.
var ignoredFields = []string{"quantization", "revision", "code_revision", "max_model_len",
	"draft_pipeline_parallel_size", "disable_padded_drafter_batch", "speculative_token_tree",
	"disable_by_batch_size", "enforce_eager", "target_model_config", "target_parallel_config",
	"disable_log_stats", "tokenizer", "suffix_decoding_max_tree_depth"}

// Parse reads the JSON object of vLLM's --speculative-config and
// validates it. Unknown fields are an error naming the field.
func Parse(text string) (Config, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return Config{}, invalidf("%q is not a JSON object: %v", text, err)
	}
	clean := map[string]json.RawMessage{}
	for k, v := range raw {
		if slices.Contains(ignoredFields, k) {
			continue
		}
		clean[k] = v
	}
	b, _ := json.Marshal(clean)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, invalidf("%s (fields: method, model, num_speculative_tokens, draft_tensor_parallel_size, prompt_lookup_max, prompt_lookup_min, acceptance_rates, acceptance_rate, acceptance_dataset)", err)
	}
	c.Method = Canonical(c.Method, c.Model)
	return c, c.Validate()
}

// Canonical maps vLLM's method aliases to their proposer: the MTP aliases
// to MTP, "" with a model to DraftModel.
func Canonical(m Method, model string) Method {
	switch {
	case m == "" && model != "":
		return DraftModel
	case slices.Contains(mtpAliases, string(m)):
		return MTP
	}
	return m
}

// Validate checks c and names the first bad field.
func (c Config) Validate() error {
	m := Canonical(c.Method, c.Model)
	k := c.NumSpeculativeTokens
	switch {
	case m == "":
		return invalidf("method is empty and no draft model is given: set method to one of %s", strings.Join(Methods(), ", "))
	case !slices.Contains(Methods(), string(m)):
		return invalidf("method %q is unknown: use one of %s", c.Method, strings.Join(Methods(), ", "))
	case k < 1 || k > MaxSpeculativeTokens:
		return invalidf("num_speculative_tokens %d must be in [1, %d] (it is required)", k, MaxSpeculativeTokens)
	case m == DraftModel && c.Model == "":
		return invalidf("model is empty: method %q needs the draft model's catalog name", m)
	case c.DraftTensorParallelSize < 0:
		return invalidf("draft_tensor_parallel_size %d must be >= 1 (0 means the target's)", c.DraftTensorParallelSize)
	case c.PromptLookupMax < 0 || c.PromptLookupMin < 0:
		return invalidf("prompt_lookup_max %d and prompt_lookup_min %d must be >= 0", c.PromptLookupMax, c.PromptLookupMin)
	case c.PromptLookupMax > 0 && c.PromptLookupMin > c.PromptLookupMax:
		return invalidf("prompt_lookup_min %d must be <= prompt_lookup_max %d", c.PromptLookupMin, c.PromptLookupMax)
	}
	sources := 0
	if len(c.AcceptanceRates) > 0 {
		sources++
	}
	if c.AcceptanceRate != nil {
		sources++
	}
	if c.AcceptanceDataset != "" {
		sources++
	}
	if sources != 1 {
		return invalidf("needs exactly one acceptance source, got %d: set acceptance_rates (vLLM's per-position rates), acceptance_rate (one i.i.d. rate) or acceptance_dataset (one of %s)", sources, strings.Join(TableDatasets(), ", "))
	}
	if a := c.AcceptanceRate; a != nil && !(*a >= 0 && *a <= 1) {
		return invalidf("acceptance_rate %v must be in [0, 1]", *a)
	}
	if n := len(c.AcceptanceRates); n > k {
		return invalidf("acceptance_rates has %d entries, more than num_speculative_tokens %d", n, k)
	}
	for i, r := range c.AcceptanceRates {
		if !(r >= 0 && r <= 1) {
			return invalidf("acceptance_rates[%d] %v must be in [0, 1]", i, r)
		}
		if i > 0 && r > c.AcceptanceRates[i-1] {
			return invalidf("acceptance_rates[%d] %v exceeds acceptance_rates[%d] %v: a position is accepted only when every one before it is, so the rates cannot rise", i, r, i-1, c.AcceptanceRates[i-1])
		}
	}
	if d := c.AcceptanceDataset; d != "" {
		row, err := lookup(m, d)
		if err != nil {
			return err
		}
		if _, ok := row.LengthAt(k); !ok {
			return invalidf("acceptance_dataset %q has no measurement at num_speculative_tokens %d: it has k = %v; give acceptance_rates or acceptance_rate instead", d, k, row.Ks())
		}
	}
	return nil
}

// Acceptance returns the acceptance model of a valid c.
func (c Config) Acceptance() (Acceptance, error) {
	if err := c.Validate(); err != nil {
		return Acceptance{}, err
	}
	k := c.NumSpeculativeTokens
	r := make([]float64, k)
	switch {
	case c.AcceptanceRate != nil:
		a := *c.AcceptanceRate
		p := 1.0
		for i := range r {
			p *= a
			r[i] = p
		}
	case len(c.AcceptanceRates) > 0:
		copy(r, c.AcceptanceRates)
	default:
		row, _ := lookup(Canonical(c.Method, c.Model), c.AcceptanceDataset)
		length, _ := row.LengthAt(k)
		a := AlphaForLength(length, k)
		p := 1.0
		for i := range r {
			p *= a
			r[i] = p
		}
	}
	for i := range r {
		r[i] = math.Max(0, math.Min(1, r[i]))
	}
	return Acceptance{rates: r}, nil
}

// VLLMJSON returns the --speculative-config value vLLM takes for c: its
// own fields only (method, model, num_speculative_tokens,
// draft_tensor_parallel_size, prompt_lookup_max/min), without servesim's
// acceptance.
func (c Config) VLLMJSON() string {
	v := c
	v.AcceptanceRates, v.AcceptanceRate, v.AcceptanceDataset = nil, nil, ""
	b, _ := json.Marshal(v)
	return string(b)
}
