package specdecode

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
)

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, json string
		method     Method
		want       string // error substring; "" for success
	}{
		{"eagle3", `{"method":"eagle3","model":"yuhuili/EAGLE3-LLaMA3.1-Instruct-8B","num_speculative_tokens":4,"acceptance_dataset":"mt-bench"}`, Eagle3, ""},
		{"mtp alias", `{"method":"deepseek_mtp","num_speculative_tokens":1,"acceptance_rate":0.85}`, MTP, ""},
		{"qwen3-next alias", `{"method":"qwen3_next_mtp","num_speculative_tokens":2,"acceptance_rates":[0.8,0.5]}`, MTP, ""},
		{"draft model inferred", `{"model":"llama-3.2-1b","num_speculative_tokens":3,"acceptance_rate":0.6,"draft_tensor_parallel_size":1}`, DraftModel, ""},
		{"ngram", `{"method":"ngram","num_speculative_tokens":5,"prompt_lookup_max":4,"prompt_lookup_min":2,"acceptance_rate":0.3}`, Ngram, ""},
		{"vllm fields ignored", `{"method":"eagle","num_speculative_tokens":2,"acceptance_rate":0.5,"quantization":"fp8","disable_by_batch_size":30}`, Eagle, ""},
		{"k missing", `{"method":"eagle","acceptance_rate":0.5}`, "", "num_speculative_tokens 0 must be in [1, 64]"},
		{"k too large", `{"method":"eagle","num_speculative_tokens":65,"acceptance_rate":0.5}`, "", "num_speculative_tokens 65"},
		{"unknown method", `{"method":"lookahead","num_speculative_tokens":2,"acceptance_rate":0.5}`, "", `method "lookahead" is unknown`},
		{"no method no model", `{"num_speculative_tokens":2,"acceptance_rate":0.5}`, "", "method is empty"},
		{"unknown field", `{"method":"eagle","num_speculative_tokens":2,"acceptance_rate":0.5,"topk":8}`, "", `unknown field "topk"`},
		{"not json", `eagle`, "", "is not a JSON object"},
		{"no acceptance", `{"method":"eagle","num_speculative_tokens":2}`, "", "needs exactly one acceptance source, got 0"},
		{"two acceptances", `{"method":"eagle","num_speculative_tokens":2,"acceptance_rate":0.5,"acceptance_rates":[0.5]}`, "", "got 2"},
		{"alpha above 1", `{"method":"eagle","num_speculative_tokens":2,"acceptance_rate":1.5}`, "", "acceptance_rate 1.5 must be in [0, 1]"},
		{"rates too many", `{"method":"eagle","num_speculative_tokens":1,"acceptance_rates":[0.5,0.4]}`, "", "acceptance_rates has 2 entries"},
		{"rates rise", `{"method":"eagle","num_speculative_tokens":2,"acceptance_rates":[0.5,0.6]}`, "", "acceptance_rates[1] 0.6 exceeds"},
		{"rate NaN-like", `{"method":"eagle","num_speculative_tokens":2,"acceptance_rates":[-0.1]}`, "", "acceptance_rates[0] -0.1"},
		{"dataset unknown", `{"method":"eagle3","num_speculative_tokens":2,"acceptance_dataset":"gsm8k"}`, "", `acceptance_dataset "gsm8k" has no row`},
		{"dataset k missing", `{"method":"eagle3","num_speculative_tokens":9,"acceptance_dataset":"mt-bench"}`, "", "no measurement at num_speculative_tokens 9"},
		{"dataset other method", `{"method":"eagle","num_speculative_tokens":2,"acceptance_dataset":"eagle3/mt-bench"}`, "", "is for method"},
		{"lookup min above max", `{"method":"ngram","num_speculative_tokens":2,"acceptance_rate":0.3,"prompt_lookup_max":2,"prompt_lookup_min":3}`, "", "prompt_lookup_min 3 must be <= prompt_lookup_max 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(tc.json)
			if tc.want != "" {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrInvalid))
				assert.Contains(t, err.Error(), tc.want)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.method, c.Method)
		})
	}
}

func TestVLLMJSON(t *testing.T) {
	t.Parallel()
	c, err := Parse(`{"method":"eagle3","model":"m","num_speculative_tokens":3,"acceptance_rate":0.5}`)
	require.NoError(t, err)
	assert.Equal(t, `{"method":"eagle3","model":"m","num_speculative_tokens":3}`, c.VLLMJSON())
}

// TestAcceptanceModel: the i.i.d. rates are α^i with the closed-form mean
// length; a table row reproduces its measured mean length exactly; one
// uniform per verification gives P(a ≥ i) = r_i (checked on a grid of u).
func TestAcceptanceModel(t *testing.T) {
	t.Parallel()
	a := 0.7
	acc, err := Config{Method: Eagle, NumSpeculativeTokens: 4, AcceptanceRate: &a}.Acceptance()
	require.NoError(t, err)
	assert.InDeltaSlice(t, []float64{0.7, 0.49, 0.343, 0.2401}, acc.Rates(), 1e-12)
	assert.InDelta(t, (1-math.Pow(0.7, 5))/0.3, acc.MeanLength(), 1e-12)
	for _, row := range DefaultTable() {
		for _, k := range row.Ks() {
			acc, err := Config{Method: row.Method, NumSpeculativeTokens: k, AcceptanceDataset: row.Dataset}.Acceptance()
			require.NoError(t, err)
			want, _ := row.LengthAt(k)
			assert.InDelta(t, want, acc.MeanLength(), 1e-9, "%s/%s k %d", row.Method, row.Dataset, k)
		}
	}
	acc, err = NewAcceptance([]float64{0.9, 0.5, 0.2})
	require.NoError(t, err)
	const n = 100000
	counts := make([]int, 4)
	for i := range n {
		counts[acc.Accepted((float64(i)+0.5)/n, 3)]++
	}
	// P(a = 0) = 0.1, P(a = 1) = 0.4, P(a = 2) = 0.3, P(a = 3) = 0.2.
	for i, p := range []float64{0.1, 0.4, 0.3, 0.2} {
		assert.InDelta(t, p, float64(counts[i])/n, 1e-4, "a = %d", i)
	}
	assert.Equal(t, 1, acc.Accepted(0.3, 1), "capped at the drafts proposed")
}

// TestUniform: the hash uniforms are uniform (mean 1/2, variance 1/12,
// within 5 standard errors over 2·10⁵ draws) and differ across seeds.
func TestUniform(t *testing.T) {
	t.Parallel()
	const n = 200000
	var s, s2 float64
	for i := range n {
		u := Uniform(1, int64(i/100), i%100)
		require.True(t, u >= 0 && u < 1)
		s += u
		s2 += u * u
	}
	mean, vr := s/n, s2/n-(s/n)*(s/n)
	assert.InDelta(t, 0.5, mean, 5*math.Sqrt(1.0/12/n))
	assert.InDelta(t, 1.0/12, vr, 5*math.Sqrt(1.0/180/n))
	assert.NotEqual(t, Uniform(1, 7, 3), Uniform(2, 7, 3))
}

// TestAlphaForLength inverts the closed form.
func TestAlphaForLength(t *testing.T) {
	t.Parallel()
	for _, k := range []int{1, 3, 7} {
		for _, a := range []float64{0.1, 0.5, 0.9} {
			l := (1 - math.Pow(a, float64(k+1))) / (1 - a)
			assert.InDelta(t, a, AlphaForLength(l, k), 1e-9)
		}
	}
	assert.Equal(t, 0.0, AlphaForLength(0.5, 3))
	assert.Equal(t, 1.0, AlphaForLength(9, 3))
}

// TestDraftShape: the proposer shapes price as documented: an EAGLE head
// is one target layer plus its fc, EAGLE-3 has the small vocabulary, a
// draft model must share the vocabulary, the draft TP is 1 or the
// target's.
func TestDraftShape(t *testing.T) {
	t.Parallel()
	target, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	a := 0.5
	c := Config{Method: Eagle3, NumSpeculativeTokens: 3, AcceptanceRate: &a}
	d, err := c.Draft(target, 1, cost.Model)
	require.NoError(t, err)
	assert.Equal(t, 1, d.Model.Layers)
	assert.Equal(t, Eagle3DraftVocab, d.Model.Vocab)
	assert.Equal(t, 3, d.Passes)
	// Every pass: the QKV projection over 2H inputs, H·(32 + 2·8)·128 =
	// 25,165,824 more weights than the target's layer, folded into the
	// MLP (3·H weights per unit): 2048 units.
	assert.Equal(t, 3*4096*(d.Model.Intermediate-target.Intermediate), 4096*(32+2*8)*128)
	// The first pass also runs the fc fusing three hidden states, 3H·H
	// weights: H more units.
	assert.Equal(t, d.Model.Intermediate+target.Hidden, d.First.Intermediate)
	assert.Equal(t, d.Model.Vocab, d.First.Vocab)
	// compute_logits: a 128,256-wide row written, 32,000 scattered, the
	// row read by argmax, in BF16.
	assert.Equal(t, float64((2*128256+32000)*2), d.LogitBytesPerRow)
	c.Method = Eagle
	d, err = c.Draft(target, 1, cost.Model)
	require.NoError(t, err)
	// EAGLE-1's fc (2H·H) runs every pass: the same shape throughout.
	assert.Equal(t, target.Intermediate+int(math.Round(2*4096.0/3)), d.Model.Intermediate)
	assert.Equal(t, d.Model, d.First)
	assert.Zero(t, d.LogitBytesPerRow)
	c.Method = Ngram
	d, err = c.Draft(target, 1, cost.Model)
	require.NoError(t, err)
	assert.Zero(t, d.Passes)
	assert.Positive(t, d.CPUSecondsPerSeq)
	c.Method, c.Model = DraftModel, "qwen2.5-7b"
	_, err = c.Draft(target, 1, cost.Model)
	require.ErrorContains(t, err, `model "qwen2.5-7b" has vocab 152064`)
	c.Model = "llama-3.2-1b"
	d, err = c.Draft(target, 2, cost.Model)
	require.NoError(t, err)
	assert.Equal(t, 16, d.Model.Layers)
	c.DraftTensorParallelSize = 4
	_, err = c.Draft(target, 2, cost.Model)
	require.ErrorContains(t, err, "draft_tensor_parallel_size 4 must be 1 or the target's tensor_parallel_size 2")
}
