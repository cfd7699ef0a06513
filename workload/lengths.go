package workload

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mathext"
)

// Lengths draws the joint (input L, output O) token counts of requests.
// Implementations are stateless values, safe for concurrent use.
type Lengths interface {
	// Sample returns the lengths of request i (0-based, in arrival order),
	// drawing from r. Input ≥ 0 and output ≥ 1.
	Sample(r *rand.Rand, i int) (input, output int)
	// Mean returns E[L] and E[O].
	Mean() (input, output float64)
	// Validate reports whether the parameters describe a distribution.
	Validate() error
}

// MaxTokens is the largest input or output length, in tokens, a length
// distribution may give: 2^30, far beyond any model's context (the longest
// are millions of tokens), and small enough that sums of lengths, KV-block
// counts and token totals never overflow an int.
const MaxTokens = 1 << 30

// A Bounded length distribution knows the range of its draws. Every
// distribution of this package is Bounded.
type Bounded interface {
	// Bounds returns the smallest and largest input and output lengths a
	// draw can have, tokens. The pairs need not be reachable together: the
	// shortest request has at least inLo + outLo tokens.
	Bounds() (inLo, inHi, outLo, outHi int)
}

// Fixed gives every request Input prompt and Output response tokens.
type Fixed struct {
	Input  int `json:"input" yaml:"input"`
	Output int `json:"output" yaml:"output"`
}

// Sample returns (Input, Output); it consumes no random numbers.
func (f Fixed) Sample(*rand.Rand, int) (int, int) { return f.Input, f.Output }

// Mean returns (Input, Output).
func (f Fixed) Mean() (float64, float64) { return float64(f.Input), float64(f.Output) }

// Bounds returns (Input, Input, Output, Output).
func (f Fixed) Bounds() (int, int, int, int) { return f.Input, f.Input, f.Output, f.Output }

// Validate requires 0 ≤ Input ≤ MaxTokens and 1 ≤ Output ≤ MaxTokens.
func (f Fixed) Validate() error { return checkPair("fixed", f.Input, f.Output) }

func checkPair(kind string, in, out int) error {
	switch {
	case in < 0:
		return fieldErr(kind+".input", in, "must be >= 0")
	case out < 1:
		return fieldErr(kind+".output", out, "must be >= 1")
	case in > MaxTokens:
		return fieldErr(kind+".input", in, "exceeds MaxTokens %d", MaxTokens)
	case out > MaxTokens:
		return fieldErr(kind+".output", out, "exceeds MaxTokens %d", MaxTokens)
	}
	return nil
}

// Random is vLLM's `random` dataset: input and output lengths independent
// and uniform over the integers [⌊n(1−r)⌋, ⌈n(1+r)⌉] for n = InputLen,
// OutputLen and r = RangeRatio, the output's low end raised to 1. Each
// draw takes one uniform for L, then one for O.
//
// OutputRangeRatio, when set, is the outputs' own r (vLLM's
// --random-range-ratio '{"input": 0.3, "output": 0.5}'); nil means
// RangeRatio. vLLM's --random-prefix-len, one prefix every prompt shares,
// is SharedPrefix around a Random.
type Random struct {
	InputLen         int      `json:"input_len" yaml:"input_len"`
	OutputLen        int      `json:"output_len" yaml:"output_len"`
	RangeRatio       float64  `json:"range_ratio" yaml:"range_ratio"`
	OutputRangeRatio *float64 `json:"output_range_ratio,omitempty" yaml:"output_range_ratio,omitempty"`
}

func (r Random) outRatio() float64 {
	if r.OutputRangeRatio != nil {
		return *r.OutputRangeRatio
	}
	return r.RangeRatio
}

func (r Random) bounds() (inLo, inHi, outLo, outHi int) {
	inLo = int(math.Floor(float64(r.InputLen) * (1 - r.RangeRatio)))
	inHi = int(math.Ceil(float64(r.InputLen) * (1 + r.RangeRatio)))
	q := r.outRatio()
	outLo = max(int(math.Floor(float64(r.OutputLen)*(1-q))), 1)
	outHi = max(int(math.Ceil(float64(r.OutputLen)*(1+q))), outLo)
	return
}

// Sample draws one request's lengths.
func (r Random) Sample(rng *rand.Rand, _ int) (int, int) {
	inLo, inHi, outLo, outHi := r.bounds()
	return inLo + rng.IntN(inHi-inLo+1), outLo + rng.IntN(outHi-outLo+1)
}

// Bounds returns the two ranges.
func (r Random) Bounds() (int, int, int, int) { return r.bounds() }

// Mean returns the midpoints of the two ranges.
func (r Random) Mean() (float64, float64) {
	inLo, inHi, outLo, outHi := r.bounds()
	return float64(inLo+inHi) / 2, float64(outLo+outHi) / 2
}

// Validate requires 0 ≤ InputLen ≤ MaxTokens/2, 1 ≤ OutputLen ≤
// MaxTokens/2 and both range ratios in [0, 1)
// (so draws stay within MaxTokens).
func (r Random) Validate() error {
	if err := checkPair("random", r.InputLen, r.OutputLen); err != nil {
		return err
	}
	if r.InputLen > MaxTokens/2 {
		return fieldErr("random.input_len", r.InputLen, "must be <= MaxTokens/2 %d", MaxTokens/2)
	}
	if r.OutputLen > MaxTokens/2 {
		return fieldErr("random.output_len", r.OutputLen, "must be <= MaxTokens/2 %d", MaxTokens/2)
	}
	if !(r.RangeRatio >= 0 && r.RangeRatio < 1) {
		return fieldErr("random.range_ratio", r.RangeRatio, "must be in [0, 1)")
	}
	if q := r.outRatio(); !(q >= 0 && q < 1) {
		return fieldErr("random.output_range_ratio", q, "must be in [0, 1)")
	}
	return nil
}

// LogNormal draws (L, O) from a bivariate log-normal: ln L and ln O are
// normal with medians InputMedian and OutputMedian, log-scale deviations
// InputSigma and OutputSigma, and correlation Correlation. Values are
// rounded to integers and clamped to [1, InputMax] and [1, OutputMax]
// (a zero maximum means MaxTokens). Each draw takes two uniforms.
type LogNormal struct {
	InputMedian  float64 `json:"input_median" yaml:"input_median"`
	InputSigma   float64 `json:"input_sigma" yaml:"input_sigma"`
	OutputMedian float64 `json:"output_median" yaml:"output_median"`
	OutputSigma  float64 `json:"output_sigma" yaml:"output_sigma"`
	Correlation  float64 `json:"correlation" yaml:"correlation"`
	InputMax     int     `json:"input_max,omitempty" yaml:"input_max,omitempty"`
	OutputMax    int     `json:"output_max,omitempty" yaml:"output_max,omitempty"`
}

// Sample draws one request's lengths.
func (l LogNormal) Sample(r *rand.Rand, _ int) (int, int) {
	z1 := mathext.NormalQuantile(openUnit(r))
	z2 := mathext.NormalQuantile(openUnit(r))
	zo := l.Correlation*z1 + math.Sqrt(1-l.Correlation*l.Correlation)*z2
	in := clampRound(l.InputMedian*math.Exp(l.InputSigma*z1), l.InputMax)
	out := clampRound(l.OutputMedian*math.Exp(l.OutputSigma*zo), l.OutputMax)
	return in, out
}

func clampRound(x float64, hi int) int {
	if hi <= 0 {
		hi = MaxTokens
	}
	if x > float64(hi) {
		return hi
	}
	return max(int(math.Round(x)), 1)
}

// Bounds returns [1, InputMax] and [1, OutputMax], MaxTokens for a zero
// cap.
func (l LogNormal) Bounds() (int, int, int, int) {
	or := func(hi int) int {
		if hi <= 0 {
			return MaxTokens
		}
		return hi
	}
	return 1, or(l.InputMax), 1, or(l.OutputMax)
}

func openUnit(r *rand.Rand) float64 {
	for {
		if u := r.Float64(); u > 0 {
			return u
		}
	}
}

// Mean returns the means before rounding and clamping:
// median·exp(σ²/2).
func (l LogNormal) Mean() (float64, float64) {
	return l.InputMedian * math.Exp(l.InputSigma*l.InputSigma/2),
		l.OutputMedian * math.Exp(l.OutputSigma*l.OutputSigma/2)
}

// Validate requires positive finite medians, finite sigmas ≥ 0, a
// correlation in [−1, 1] and caps ≥ 0.
func (l LogNormal) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"input_median", l.InputMedian}, {"output_median", l.OutputMedian}} {
		if !(f.v > 0) || math.IsInf(f.v, 1) {
			return fieldErr("lognormal."+f.name, f.v, "must be a finite number > 0")
		}
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"input_sigma", l.InputSigma}, {"output_sigma", l.OutputSigma}} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return fieldErr("lognormal."+f.name, f.v, "must be a finite number >= 0")
		}
	}
	if !(l.Correlation >= -1 && l.Correlation <= 1) {
		return fieldErr("lognormal.correlation", l.Correlation, "must be in [-1, 1]")
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"input_max", l.InputMax}, {"output_max", l.OutputMax}} {
		if f.v < 0 || f.v > MaxTokens {
			return fieldErr("lognormal."+f.name, f.v, "must be in [0, MaxTokens %d] (0: MaxTokens)", MaxTokens)
		}
	}
	return nil
}

// A Pair is one request's (input, output) token counts.
type Pair struct {
	Input  int `json:"input" yaml:"input"`
	Output int `json:"output" yaml:"output"`
}

// Empirical resamples whole rows of Pairs uniformly with replacement, so the
// joint distribution of (L, O) — their correlation included — is kept.
// Each draw takes one uniform. With Blocks (a trace's hash_ids), a drawn
// row brings its prompt's block identities along (see Sequence).
type Empirical struct {
	Pairs     []Pair    `json:"pairs" yaml:"pairs"`
	Blocks    [][]int64 `json:"blocks,omitempty" yaml:"blocks,omitempty"`
	BlockSize int       `json:"block_size,omitempty" yaml:"block_size,omitempty"`
}

// Sample draws one row.
func (e Empirical) Sample(r *rand.Rand, _ int) (int, int) {
	p := e.Pairs[r.IntN(len(e.Pairs))]
	return p.Input, p.Output
}

// SamplePrompt draws one row and appends its blocks' segments.
func (e Empirical) SamplePrompt(r *rand.Rand, _ int, buf []Segment) (int, int, []Segment) {
	k := r.IntN(len(e.Pairs))
	p := e.Pairs[k]
	if e.Blocks != nil {
		buf = blockSegments(buf, e.Blocks[k], e.BlockSize, p.Input)
	}
	return p.Input, p.Output, buf
}

// Mean returns the row means.
func (e Empirical) Mean() (float64, float64) { return meanPairs(e.Pairs) }

// Bounds returns the smallest and largest input and output of the rows.
func (e Empirical) Bounds() (int, int, int, int) { return boundsPairs(e.Pairs) }

// Validate requires at least one row, each with input ≥ 0 and output ≥ 1,
// and with Blocks one list per row and a BlockSize ≥ 1.
func (e Empirical) Validate() error {
	if err := checkPairs("empirical", e.Pairs); err != nil {
		return err
	}
	return checkBlocks("empirical", len(e.Pairs), e.Blocks, e.BlockSize)
}

// Sequence gives request i the row Pairs[i mod len(Pairs)]: a trace's
// lengths in the trace's order, for exact replay beside Replay arrivals.
// It consumes no random numbers.
//
// Blocks, when set, holds each row's prefix-block identities (a Mooncake
// trace's hash_ids): block b of row i stands for prompt tokens
// [b·BlockSize, (b+1)·BlockSize), the last block cut at the input length,
// and rows with equal ids there have equal tokens there. A server with
// prefix caching maps them onto its own blocks exactly (see Segment): a
// 512-token trace block is 32 blocks of a 16-token engine, each of which
// hits only if its whole prefix does.
type Sequence struct {
	Pairs     []Pair    `json:"pairs" yaml:"pairs"`
	Blocks    [][]int64 `json:"blocks,omitempty" yaml:"blocks,omitempty"`
	BlockSize int       `json:"block_size,omitempty" yaml:"block_size,omitempty"`
}

// Sample returns row i (cyclically).
func (s Sequence) Sample(_ *rand.Rand, i int) (int, int) {
	p := s.Pairs[i%len(s.Pairs)]
	return p.Input, p.Output
}

// SamplePrompt returns row i (cyclically) and appends its blocks'
// segments.
func (s Sequence) SamplePrompt(_ *rand.Rand, i int, buf []Segment) (int, int, []Segment) {
	k := i % len(s.Pairs)
	p := s.Pairs[k]
	if s.Blocks != nil {
		buf = blockSegments(buf, s.Blocks[k], s.BlockSize, p.Input)
	}
	return p.Input, p.Output, buf
}

// Mean returns the row means.
func (s Sequence) Mean() (float64, float64) { return meanPairs(s.Pairs) }

// Bounds returns the smallest and largest input and output of the rows.
func (s Sequence) Bounds() (int, int, int, int) { return boundsPairs(s.Pairs) }

func boundsPairs(ps []Pair) (inLo, inHi, outLo, outHi int) {
	if len(ps) == 0 {
		return 0, 0, 0, 0
	}
	inLo, inHi, outLo, outHi = ps[0].Input, ps[0].Input, ps[0].Output, ps[0].Output
	for _, p := range ps[1:] {
		inLo, inHi = min(inLo, p.Input), max(inHi, p.Input)
		outLo, outHi = min(outLo, p.Output), max(outHi, p.Output)
	}
	return
}

// Validate requires at least one row, each with input ≥ 0 and output ≥ 1,
// and with Blocks one list per row and a BlockSize ≥ 1.
func (s Sequence) Validate() error {
	if err := checkPairs("sequence", s.Pairs); err != nil {
		return err
	}
	return checkBlocks("sequence", len(s.Pairs), s.Blocks, s.BlockSize)
}

func checkBlocks(kind string, rows int, blocks [][]int64, size int) error {
	if blocks == nil {
		return nil
	}
	if len(blocks) != rows {
		return fieldErr(kind+".blocks", len(blocks), "rows for %d pairs: give one block list per pair", rows)
	}
	if size < 1 {
		return fieldErr(kind+".block_size", size, "must be >= 1 with blocks")
	}
	return nil
}

// blockSegments appends the segments of a prompt of input tokens whose
// blocks of size tokens have the given ids: block b covers tokens
// [b·size, min((b+1)·size, input)). Ids past the input are ignored;
// tokens past the last id are the request's own.
func blockSegments(buf []Segment, ids []int64, size, input int) []Segment {
	return repeatSegments(buf, ids, size, input, 0)
}

// repeatSegments is blockSegments for repeat k of a replay: its ids are
// ContentID(spaceTraceBlock, id, k).
func repeatSegments(buf []Segment, ids []int64, size, input int, k uint64) []Segment {
	for b, id := range ids {
		n := min(size, input-b*size)
		if n <= 0 {
			break
		}
		buf = append(buf, Segment{ID: ContentID(spaceTraceBlock, uint64(id), k), Tokens: n})
	}
	return buf
}

func meanPairs(ps []Pair) (float64, float64) {
	var in, out float64
	for _, p := range ps {
		in += float64(p.Input)
		out += float64(p.Output)
	}
	n := float64(len(ps))
	return in / n, out / n
}

func checkPairs(kind string, ps []Pair) error {
	if len(ps) == 0 {
		return fieldErr(kind+".pairs", nil, "must not be empty")
	}
	for i, p := range ps {
		if err := checkPair(fmt.Sprintf("%s.pairs[%d]", kind, i), p.Input, p.Output); err != nil {
			return err
		}
	}
	return nil
}

var (
	_ Bounded = Fixed{}
	_ Bounded = Random{}
	_ Bounded = LogNormal{}
	_ Bounded = Empirical{}
	_ Bounded = Sequence{}
	_ Bounded = QuantileTable{}
)
