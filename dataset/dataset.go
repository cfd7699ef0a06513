// Package dataset reads the datasets of `vllm bench serve` from local
// files and turns them into the (input, output) token lengths of each
// request, sampled as vLLM samples them: ShareGPT conversations (JSON),
// BurstGPT (CSV), custom prompts and Spec-Bench questions (JSONL), and the
// synthetic prefix_repetition set.
//
// Token counts of text come from a Tokenizer. The package has two: BPE,
// a model's own byte-level BPE tokenizer read from its Hugging Face
// tokenizer.json (LoadBPE; GPT-2, Llama 3, Qwen, DeepSeek), which counts
// as vLLM's client does, special tokens included; and Approx, a documented
// approximation (characters / 4, plus the special token a model's
// tokenizer adds) for when no tokenizer.json is at hand. Neither applies
// chat templates. Errors name the file and, where one row is at fault,
// its line.
//
// The readers stream: a file is read row by row (at most MaxFileBytes,
// each row at most MaxRowBytes) and only the rows a run takes are kept,
// at most NumPrompts; Requests says how many requests they make, those
// past the rows drawing rows again lazily (workload.Oversampled). With
// shuffling the rows kept are the valid ones of smallest random key, the
// distribution of vLLM's shuffle-then-take-the-first-valid. Sampling
// draws from the *rand.Rand in Options, so equal seeds give equal
// lengths; the draws are not Python's, so the rows chosen differ from
// vLLM's for the same --seed. Nothing here is safe for concurrent use
// with the same Options.
package dataset

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"unicode/utf8"
)

// ErrDataset is wrapped by every error of this package.
var ErrDataset = errors.New("dataset")

// A Tokenizer counts the tokens a model's tokenizer makes of text,
// special tokens (BOS) included, as vLLM's client counts prompts.
type Tokenizer interface {
	Count(text string) int
}

// Approx approximates a tokenizer: ⌈characters/4⌉ + Special tokens, the
// rule of thumb for English text with the 100k–150k vocabularies of
// Llama 3 and Qwen (about four characters a token). Characters are
// Unicode code points. The empty text counts Special tokens.
type Approx struct {
	// Special is the number of special tokens the tokenizer adds (1: the
	// BOS of Llama-style tokenizers).
	Special int
}

// Count returns ⌈characters/4⌉ + Special.
func (a Approx) Count(text string) int {
	return (utf8.RuneCountInString(text)+3)/4 + a.Special
}

// String describes the approximation, for reports.
func (a Approx) String() string {
	return fmt.Sprintf("approximated as ceil(characters/4) + %d (no tokenizer read)", a.Special)
}

// Options say how many requests to draw and how.
type Options struct {
	// NumPrompts is the number of requests wanted. Custom and Spec-Bench
	// take every row when it is <= 0.
	NumPrompts int
	// OutputLen fixes every request's output tokens; 0 takes the
	// dataset's own (a ShareGPT reply's length, a custom row's
	// output_tokens), where the dataset has one.
	OutputLen int
	// NoOversample runs with fewer requests when the file yields fewer
	// valid rows than NumPrompts, instead of drawing rows again.
	NoOversample bool
	// DisableShuffle takes rows in file order instead of shuffled.
	DisableShuffle bool
	// Tokenizer counts text tokens; nil is Approx{Special: 1}.
	Tokenizer Tokenizer
	// Rand drives shuffles and draws; it must be set.
	Rand *rand.Rand
}

func (o *Options) tokenizer() Tokenizer {
	if o.Tokenizer == nil {
		return Approx{Special: 1}
	}
	return o.Tokenizer
}

func (o *Options) check() error {
	if o.Rand == nil {
		return fmt.Errorf("%w: Options.Rand is not set", ErrDataset)
	}
	return nil
}

// rowError names the file and line of a bad row.
func rowError(path string, line int, format string, args ...any) error {
	return fmt.Errorf("%w: %s:%d: %s", ErrDataset, path, line, fmt.Sprintf(format, args...))
}

// fileError names the file.
func fileError(path string, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrDataset, path, fmt.Sprintf(format, args...))
}
