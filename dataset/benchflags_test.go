package dataset

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestParseRangeRatio: one ratio for both lengths, a JSON object setting
// them apart, and the errors naming what is wrong.
func TestParseRangeRatio(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in     string
		a, b   float64
		errHas string
	}{
		{"0.25", 0.25, 0.25, ""},
		{" 0 ", 0, 0, ""},
		{`{"input": 0.5, "output": 0}`, 0.5, 0, ""},
		{`{"input": 0.5}`, 0.5, 0, ""},
		{"1", 0, 0, "input_range_ratio 1 must be in [0, 1)"},
		{"-0.1", 0, 0, "input_range_ratio -0.1 must be in [0, 1)"},
		{`{"input": 0.2, "output": 1.5}`, 0, 0, "output_range_ratio 1.5 must be in [0, 1)"},
		{`{"in": 0.2}`, 0, 0, `unknown key "in"`},
		{`{"input": }`, 0, 0, "want a number or"},
		{"x", 0, 0, "want a number in [0, 1)"},
	}
	for _, tt := range tests {
		a, b, err := ParseRangeRatio(tt.in)
		switch {
		case tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)):
			t.Errorf("%q: error %v, want one containing %q", tt.in, err, tt.errHas)
		case tt.errHas == "" && (err != nil || a != tt.a || b != tt.b):
			t.Errorf("%q = %v, %v, %v; want %v, %v", tt.in, a, b, err, tt.a, tt.b)
		}
	}
}

// TestTokenizerFor: a tokenizer.json path loads it; a name, or a model
// directory without one, approximates; a path that is no tokenizer is an
// error naming the flag.
func TestTokenizerFor(t *testing.T) {
	t.Parallel()
	file := filepath.Join("testdata", "tokenizer", "gpt2-like.json")
	tests := []struct {
		tokenizer, model string
		bpe              bool
		errHas           string
	}{
		{file, "llama-3.1-8b", true, ""},
		{"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b", false, ""},
		{"", t.TempDir(), false, ""},
		{"absent/tokenizer.json", "", false, "--tokenizer: "},
	}
	for _, tt := range tests {
		tok, err := TokenizerFor(tt.tokenizer, tt.model)
		if tt.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("%q: error %v, want one containing %q", tt.tokenizer, err, tt.errHas)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.tokenizer, err)
		}
		if _, isBPE := tok.(*BPE); isBPE != tt.bpe {
			t.Errorf("%q: tokenizer %T, want a BPE: %v", tt.tokenizer, tok, tt.bpe)
		}
	}
}
