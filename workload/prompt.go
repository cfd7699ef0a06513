package workload

import (
	"math/rand/v2"

	"github.com/servesim/servesim/internal/mix"
)

// A Segment is a run of Tokens tokens with one identity: token k of a
// segment with ID x is the same token as token k of every other segment
// with ID x. A request's content is its segments in order, from the start
// of its prompt; tokens past the last segment are the request's own and
// shared with no other request. Two requests share a prefix of n tokens
// exactly when their first n tokens are equal in this sense, which is what
// a server's prefix cache looks for (vLLM hashes whole blocks of token
// ids, chained from the start of the prompt; a block hits only when every
// token before and in it matches).
//
// IDs are opaque: workloads derive them with ContentID from what the
// tokens stand for (a shared system prompt, a trace's block hash, a turn
// of a conversation), so equal IDs mean equal text.
type Segment struct {
	ID     uint64 `json:"id" yaml:"id"`
	Tokens int    `json:"tokens" yaml:"tokens"`
}

// A PromptSampler is a Lengths that also says what each request's tokens
// are, so that a server with prefix caching can find the prefixes requests
// share. Lengths that are not PromptSamplers give requests that share
// nothing.
type PromptSampler interface {
	Lengths
	// SamplePrompt returns request i's lengths exactly as Sample does,
	// drawing the same random numbers, and appends its content to buf: the
	// segments its prompt starts with, possibly all of its prompt and its
	// output (a conversation's next turn repeats this turn's output). It
	// allocates nothing when buf has room.
	SamplePrompt(r *rand.Rand, i int, buf []Segment) (input, output int, content []Segment)
}

// Content ID spaces: a workload's IDs are ContentID(space, a, b) with its
// own space, so IDs of different origins never meet.
const (
	spaceSharedPrefix uint64 = iota + 1
	spacePrefixRepetition
	spaceTraceBlock
	spaceSessionUser
	spaceSessionAssistant
	spaceSystemPrompt
)

// ContentID returns the identity of content (a, b) in ID space space: a
// 64-bit mix (MurmurHash3's finalizer over the three words), so distinct
// arguments give distinct IDs with probability 1 − 2⁻⁶⁴ per pair.
func ContentID(space, a, b uint64) uint64 {
	h := mix.Mix64(space*0x9e3779b97f4a7c15 + a)
	return mix.Mix64(h ^ (b*0xc2b2ae3d27d4eb4f + 0x165667b19e3779f9))
}

// SharedPrefix puts the same Tokens-token prefix in front of every
// request's prompt, followed by what Lengths draws: vLLM's random dataset
// with --random-prefix-len (one random prefix shared by every request),
// or a system prompt common to all requests of any length law. Request
// i's input is Tokens plus Lengths' input; its output is Lengths' output.
// When Lengths is itself a PromptSampler, its content follows the prefix.
type SharedPrefix struct {
	Tokens  int     `json:"tokens" yaml:"tokens"`
	Lengths Lengths `json:"lengths" yaml:"lengths"`
}

// Sample returns (Tokens + input, output) of Lengths' draw.
func (p SharedPrefix) Sample(r *rand.Rand, i int) (int, int) {
	in, out := p.Lengths.Sample(r, i)
	return p.Tokens + in, out
}

// SamplePrompt is Sample with the prefix as the first segment.
func (p SharedPrefix) SamplePrompt(r *rand.Rand, i int, buf []Segment) (int, int, []Segment) {
	if p.Tokens > 0 {
		buf = append(buf, Segment{ID: ContentID(spaceSharedPrefix, uint64(p.Tokens), 0), Tokens: p.Tokens})
	}
	var in, out int
	if ps, ok := p.Lengths.(PromptSampler); ok {
		in, out, buf = ps.SamplePrompt(r, i, buf)
	} else {
		in, out = p.Lengths.Sample(r, i)
	}
	return p.Tokens + in, out, buf
}

// Mean returns (Tokens + E[input], E[output]).
// Bounds returns the inner lengths' bounds with the prefix added to the
// input (Bounded). When the inner lengths are not Bounded it returns the
// widest bounds the prefix allows: inputs of Tokens to MaxTokens, outputs
// of 1 to MaxTokens.
func (p SharedPrefix) Bounds() (inLo, inHi, outLo, outHi int) {
	b, ok := p.Lengths.(Bounded)
	if !ok {
		return p.Tokens, MaxTokens, 1, MaxTokens
	}
	inLo, inHi, outLo, outHi = b.Bounds()
	return inLo + p.Tokens, inHi + p.Tokens, outLo, outHi
}

func (p SharedPrefix) Mean() (float64, float64) {
	in, out := p.Lengths.Mean()
	return float64(p.Tokens) + in, out
}

// Validate requires Tokens ≥ 0 and valid Lengths.
func (p SharedPrefix) Validate() error {
	if p.Tokens < 0 {
		return fieldErr("shared_prefix.tokens", p.Tokens, "must be >= 0")
	}
	if p.Lengths == nil {
		return fieldErr("shared_prefix.lengths", nil, "are not set")
	}
	return p.Lengths.Validate()
}

// PrefixRepetition is vLLM's prefix_repetition dataset: NumPrefixes
// distinct prefixes of PrefixLen tokens; each request is one of them
// followed by SuffixLen tokens of its own, and returns OutputLen tokens.
// vLLM hands each prefix to ⌊n/NumPrefixes⌋ requests and shuffles them;
// here request i's prefix is drawn uniformly (one uniform per request), so
// each prefix serves n/NumPrefixes requests on average, without needing n.
type PrefixRepetition struct {
	PrefixLen   int `json:"prefix_len" yaml:"prefix_len"`
	SuffixLen   int `json:"suffix_len" yaml:"suffix_len"`
	NumPrefixes int `json:"num_prefixes" yaml:"num_prefixes"`
	OutputLen   int `json:"output_len" yaml:"output_len"`
}

// vLLM's defaults for the prefix_repetition dataset.
const (
	DefaultPrefixRepetitionPrefixLen   = 256
	DefaultPrefixRepetitionSuffixLen   = 256
	DefaultPrefixRepetitionNumPrefixes = 10
	DefaultPrefixRepetitionOutputLen   = 128
)

// Sample draws request i's prefix and returns (PrefixLen + SuffixLen,
// OutputLen).
func (p PrefixRepetition) Sample(r *rand.Rand, i int) (int, int) {
	r.IntN(p.NumPrefixes)
	return p.PrefixLen + p.SuffixLen, p.OutputLen
}

// SamplePrompt is Sample with the drawn prefix as the first segment.
func (p PrefixRepetition) SamplePrompt(r *rand.Rand, _ int, buf []Segment) (int, int, []Segment) {
	k := r.IntN(p.NumPrefixes)
	if p.PrefixLen > 0 {
		buf = append(buf, Segment{ID: ContentID(spacePrefixRepetition, uint64(k), uint64(p.PrefixLen)), Tokens: p.PrefixLen})
	}
	return p.PrefixLen + p.SuffixLen, p.OutputLen, buf
}

// Mean returns (PrefixLen + SuffixLen, OutputLen).
func (p PrefixRepetition) Mean() (float64, float64) {
	return float64(p.PrefixLen + p.SuffixLen), float64(p.OutputLen)
}

// Validate requires lengths ≥ 0, OutputLen ≥ 1 and NumPrefixes ≥ 1.
func (p PrefixRepetition) Validate() error {
	switch {
	case p.PrefixLen < 0:
		return fieldErr("prefix_repetition.prefix_len", p.PrefixLen, "must be >= 0")
	case p.SuffixLen < 0:
		return fieldErr("prefix_repetition.suffix_len", p.SuffixLen, "must be >= 0")
	case p.NumPrefixes < 1:
		return fieldErr("prefix_repetition.num_prefixes", p.NumPrefixes, "must be >= 1")
	case p.OutputLen < 1:
		return fieldErr("prefix_repetition.output_len", p.OutputLen, "must be >= 1")
	}
	return nil
}
