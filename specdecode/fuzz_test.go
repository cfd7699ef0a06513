package specdecode

import (
	"errors"
	"testing"
)

// FuzzParse: any text parses to a valid config or an ErrInvalid error,
// never a panic; a valid config's acceptance model has k rates in [0, 1],
// non-increasing.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"method":"eagle3","num_speculative_tokens":4,"acceptance_dataset":"mt-bench"}`,
		`{"method":"deepseek_mtp","num_speculative_tokens":1,"acceptance_rate":0.85}`,
		`{"model":"llama-3.2-1b","num_speculative_tokens":3,"acceptance_rates":[0.9,0.5]}`,
		`{"method":"ngram","num_speculative_tokens":64,"acceptance_rate":1e-300}`,
		`[]`, `null`, `{"num_speculative_tokens":1e99}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Parse(%q): %v does not match ErrInvalid", s, err)
			}
			return
		}
		acc, err := c.Acceptance()
		if err != nil {
			t.Fatalf("valid config %+v: %v", c, err)
		}
		r := acc.Rates()
		if len(r) != c.NumSpeculativeTokens {
			t.Fatalf("%d rates for k %d", len(r), c.NumSpeculativeTokens)
		}
		for i, v := range r {
			if !(v >= 0 && v <= 1) || (i > 0 && v > r[i-1]) {
				t.Fatalf("rates %v", r)
			}
		}
	})
}
