package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/servesim/servesim/workload"
)

// Sonnet's defaults: vLLM's SonnetDataset DEFAULT_PREFIX_LEN, _INPUT_LEN
// and _OUTPUT_LEN, tokens.
const (
	SonnetPrefixLen = 200
	SonnetInputLen  = 550
	SonnetOutputLen = 150
)

// sonnetBase is the text vLLM's SonnetDataset starts every prompt with.
const sonnetBase = "Pick as many lines as you can from these poem lines:\n"

// SonnetOptions are the --sonnet-* flags, tokens.
type SonnetOptions struct {
	InputLen, OutputLen, PrefixLen int
	// BlockSize is the tokens per block id of the prompts' content
	// (SonnetRequests.Blocks): the engine's KV block size.
	BlockSize int
}

// SonnetRequests are the requests Sonnet builds: their lengths and, for
// each, its prompt's block ids, BlockSize tokens each (the last may be
// partial). Requests share the ids of the full blocks of their common
// prefix, so a prefix cache sees the sharing.
type SonnetRequests struct {
	Pairs     []workload.Pair
	Blocks    [][]int64
	BlockSize int
	// Lines is the number of poem lines of each prompt, Prefix the number
	// of them every prompt shares, and PrefixTokens the tokens of the
	// shared text (the base instruction and those lines).
	Lines, Prefix, PrefixTokens int
}

// maxSonnetTries bounds the draws per request: vLLM redraws a prompt
// longer than InputLen forever; here a request that is still too long
// after this many draws is an error.
const maxSonnetTries = 1000

// Sonnet builds vLLM's sonnet prompts from the text file at path (one
// poem line a line, as benchmarks/sonnet.txt) as SonnetDataset.sample
// does: every prompt is the base instruction, the file's first
// round((PrefixLen - base)/avg) lines, then lines drawn at random with
// replacement up to round((InputLen - base)/avg) lines in all, where avg
// is the mean tokens of a line and base the tokens of the instruction;
// a prompt of more than InputLen tokens is drawn again. Each request
// asks OutputLen tokens. Unlike vLLM, no chat template is applied (the
// package applies none), so the base has fewer tokens than vLLM counts
// with a model's template. NumPrompts requests are built (no
// oversampling: each prompt is its own).
func Sonnet(path string, s SonnetOptions, o Options) (*SonnetRequests, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	switch {
	case s.OutputLen < 1 || s.OutputLen > workload.MaxTokens:
		return nil, fmt.Errorf("%w: --sonnet-output-len %d must be from 1 to %d", ErrDataset, s.OutputLen, workload.MaxTokens)
	case s.PrefixLen < 0:
		return nil, fmt.Errorf("%w: --sonnet-prefix-len %d must be >= 0", ErrDataset, s.PrefixLen)
	case s.InputLen > workload.MaxTokens:
		return nil, fmt.Errorf("%w: --sonnet-input-len %d must be at most %d", ErrDataset, s.InputLen, workload.MaxTokens)
	case s.BlockSize < 1:
		return nil, fmt.Errorf("%w: SonnetOptions.BlockSize %d must be >= 1", ErrDataset, s.BlockSize)
	case o.NumPrompts < 1:
		return nil, fmt.Errorf("%w: --num-prompts %d must be >= 1 for sonnet", ErrDataset, o.NumPrompts)
	}
	lines, err := readLines(path)
	if err != nil {
		return nil, err
	}
	tok := o.tokenizer()
	total := 0
	for _, l := range lines {
		total += tok.Count(l)
	}
	avg := float64(total) / float64(len(lines))
	base := tok.Count(sonnetBase)
	if s.InputLen <= base {
		return nil, fmt.Errorf("%w: --sonnet-input-len %d must be higher than the base prompt length (%d tokens)", ErrDataset, s.InputLen, base)
	}
	numInput := int(math.RoundToEven(float64(s.InputLen-base) / avg))
	numPrefix := max(int(math.RoundToEven(float64(s.PrefixLen-base)/avg)), 0)
	numPrefix = min(numPrefix, len(lines))
	if numInput < numPrefix {
		return nil, fmt.Errorf("%w: --sonnet-prefix-len %d must be at most --sonnet-input-len %d", ErrDataset, s.PrefixLen, s.InputLen)
	}
	if blocks := o.NumPrompts * ((s.InputLen + s.BlockSize - 1) / s.BlockSize); blocks > maxBlockIDs || blocks < 0 {
		return nil, fmt.Errorf("%w: --num-prompts %d prompts of up to --sonnet-input-len %d tokens span more than %d blocks of %d tokens: give fewer prompts or shorter ones", ErrDataset, o.NumPrompts, s.InputLen, maxBlockIDs, s.BlockSize)
	}
	prefix := sonnetBase + strings.Join(lines[:numPrefix], "")
	prefixTokens := tok.Count(prefix)
	shared := prefixTokens / s.BlockSize // full blocks every prompt has
	r := &SonnetRequests{BlockSize: s.BlockSize, Lines: numInput, Prefix: numPrefix, PrefixTokens: prefixTokens,
		Pairs: make([]workload.Pair, o.NumPrompts), Blocks: make([][]int64, o.NumPrompts)}
	var b strings.Builder
	for i := range r.Pairs {
		in := 0
		for try := 0; ; try++ {
			if try == maxSonnetTries {
				return nil, fmt.Errorf("%w: %s: no draw of %d lines fits --sonnet-input-len %d tokens in %d tries: give a larger --sonnet-input-len", ErrDataset, path, numInput, s.InputLen, maxSonnetTries)
			}
			b.Reset()
			b.WriteString(prefix)
			for range numInput - numPrefix {
				b.WriteString(lines[o.Rand.IntN(len(lines))])
			}
			if in = tok.Count(b.String()); in <= s.InputLen {
				break
			}
		}
		r.Pairs[i] = workload.Pair{Input: in, Output: s.OutputLen}
		n := (in + s.BlockSize - 1) / s.BlockSize
		ids := make([]int64, n)
		for j := range ids {
			if j < shared {
				ids[j] = int64(j + 1) // the common prefix: equal ids
			} else {
				ids[j] = -(int64(i)<<24 | int64(j)) - 1 // this prompt's own
			}
		}
		r.Blocks[i] = ids
	}
	return r, nil
}

// readLines reads a text file's lines, each with its newline, as
// Python's readlines; an empty file is an error.
func readLines(path string) ([]string, error) {
	f, err := openBounded(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd := bufio.NewReaderSize(&rowLimiter{r: f}, 64<<10)
	var lines []string
	for {
		l, err := rd.ReadString('\n')
		if l != "" {
			if len(l) > maxRow {
				return nil, fileError(path, "%v", errRowTooLong)
			}
			lines = append(lines, l)
		}
		if err != nil {
			if errors.Is(err, errRowTooLong) {
				return nil, fileError(path, "%v", err)
			}
			break
		}
	}
	if len(lines) == 0 {
		return nil, fileError(path, "is empty: want poem lines, one a line (vLLM's benchmarks/sonnet.txt)")
	}
	return lines, nil
}
