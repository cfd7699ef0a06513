package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The values of `vllm bench serve` flags that only the datasets read.

// TokenizerFor returns what counts the tokens of text datasets for vLLM's
// --tokenizer and --model: the tokenizer.json at tokenizer (a file, or a
// directory holding one) or, with tokenizer empty, in the model
// directory; else, for a tokenizer name (a Hugging Face id) or none, the
// approximation (Approx with one special token). Errors name the flag.
func TokenizerFor(tokenizer, model string) (Tokenizer, error) {
	approx := Approx{Special: 1}
	if tokenizer == "" {
		if st, err := os.Stat(filepath.Join(model, "tokenizer.json")); err != nil || st.IsDir() {
			return approx, nil
		}
		tok, err := LoadBPE(model)
		if err != nil {
			return nil, fmt.Errorf("--model: %s; give --tokenizer a model name to approximate the token counts instead", strings.TrimPrefix(err.Error(), "dataset: "))
		}
		return tok, nil
	}
	_, statErr := os.Stat(tokenizer)
	path := statErr == nil || strings.HasSuffix(tokenizer, ".json") || filepath.IsAbs(tokenizer) || strings.HasPrefix(tokenizer, ".")
	if !path {
		return approx, nil
	}
	tok, err := LoadBPE(tokenizer)
	if err != nil {
		return nil, fmt.Errorf("--tokenizer: %s; a tokenizer name instead of a path approximates the token counts", strings.TrimPrefix(err.Error(), "dataset: "))
	}
	return tok, nil
}

// ParseRangeRatio reads vLLM's --random-range-ratio: one number for
// inputs and outputs, or a JSON object {"input": a, "output": b}; each in
// [0, 1).
func ParseRangeRatio(s string) (in, out float64, err error) {
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, "{") {
		var m map[string]float64
		if err := json.Unmarshal([]byte(t), &m); err != nil {
			return 0, 0, fmt.Errorf("want a number or {\"input\": r1, \"output\": r2}: %v", err)
		}
		for k := range m {
			if k != "input" && k != "output" {
				return 0, 0, fmt.Errorf("unknown key %q (want input and output)", k)
			}
		}
		in, out = m["input"], m["output"]
	} else {
		v, perr := strconv.ParseFloat(t, 64)
		if perr != nil {
			return 0, 0, errors.New("want a number in [0, 1) or {\"input\": r1, \"output\": r2}")
		}
		in, out = v, v
	}
	for _, r := range []struct {
		name string
		v    float64
	}{{"input", in}, {"output", out}} {
		if !(r.v >= 0 && r.v < 1) {
			return 0, 0, fmt.Errorf("%s_range_ratio %v must be in [0, 1)", r.name, r.v)
		}
	}
	return in, out, nil
}
