package dataset

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/servesim/servesim/workload"
)

// Conversations are the requests of a multi-turn benchmark: one per
// assistant answer, its prompt every message before the answer (the
// history and the new user turn), its output the answer's tokens. Blocks
// lists each prompt's block ids, BlockSize tokens each: a conversation's
// later turns carry its earlier turns' full blocks, and conversations
// share the full blocks of a common prefix, so a prefix cache sees both.
type Conversations struct {
	Pairs     []workload.Pair
	Blocks    [][]int64
	BlockSize int
	// Count is the number of conversations read or generated, Turns the
	// requests they hold (Pairs keeps at most NumPrompts of them).
	Count, Turns int
}

// Limits of a multi-turn file: conversations, and messages in one.
const (
	maxConversations = 1 << 20
	maxMessages      = 1 << 12
	// maxTotalMessages bounds the messages of a whole file (generated or
	// read): the work to build its requests follows it.
	maxTotalMessages = 1 << 21
)

// MultiTurn reads a file of vLLM's multi-turn benchmark
// (benchmarks/multi_turn): either a JSON list of conversations, {"id",
// "messages": [{"role", "content"}]} as convert_sharegpt_to_openai.py
// writes them, whose messages are tokenized one by one; or a
// generate_conversations configuration ({"filetype":
// "generate_conversations", "num_conversations", "prompt_input",
// "prompt_output"}, as generate_multi_turn.json), whose distributions
// are sampled as bench_dataset.py samples them (generateConversations).
// Requests are ordered as the benchmark's round-robin client sends them,
// turn by turn over the conversations (every first turn, then every
// second, ...), and the first NumPrompts are kept (all when it is <= 0).
// Nothing here waits for a turn's answer before the next turn is sent:
// the order is the benchmark's, the timing the run's arrival process.
func MultiTurn(path string, blockSize int, o Options) (*Conversations, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if blockSize < 1 {
		return nil, fmt.Errorf("%w: block size %d must be >= 1", ErrDataset, blockSize)
	}
	f, err := openBounded(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(maxRow)+1))
	if err != nil {
		return nil, fileError(path, "%v", err)
	}
	if len(data) > maxRow {
		return nil, fileError(path, "a multi-turn file is read whole and must be at most %d bytes (MaxRowBytes, 64 MiB)", MaxRowBytes)
	}
	var convs [][]int // each conversation's message tokens, user first
	common := 0       // tokens of the prefix every conversation starts with
	switch t := strings.TrimSpace(string(data)); {
	case strings.HasPrefix(t, "["):
		convs, err = readConversations(path, data, o.tokenizer())
	case strings.HasPrefix(t, "{"):
		convs, common, err = generateConversations(path, data, o.Rand)
	default:
		err = fileError(path, "want a JSON list of {\"id\", \"messages\"} conversations or a generate_conversations object (vLLM's benchmarks/multi_turn)")
	}
	if err != nil {
		return nil, err
	}
	return conversationRequests(path, convs, common, blockSize, o.NumPrompts)
}

// readConversations tokenizes a JSON list of conversations.
func readConversations(path string, data []byte, tok Tokenizer) ([][]int, error) {
	var list []struct {
		ID       string `json:"id"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, jsonError(path, data, err, "want a JSON list of {\"id\", \"messages\": [{\"role\", \"content\"}]}")
	}
	if len(list) == 0 || len(list) > maxConversations {
		return nil, fileError(path, "%d conversations, want 1 to %d", len(list), maxConversations)
	}
	seen := map[string]bool{}
	convs := make([][]int, 0, len(list))
	total := 0
	for i, c := range list {
		if total += len(c.Messages); total > maxTotalMessages {
			return nil, fileError(path, "more than %d messages in all: split the file", maxTotalMessages)
		}
		if seen[c.ID] {
			return nil, fileError(path, "conversation %d: id %q appears twice", i, c.ID)
		}
		seen[c.ID] = true
		if len(c.Messages) == 0 || len(c.Messages) > maxMessages {
			return nil, fileError(path, "conversation %q: %d messages, want 1 to %d", c.ID, len(c.Messages), maxMessages)
		}
		toks := make([]int, 0, len(c.Messages))
		for j, m := range c.Messages {
			want := "user"
			if j%2 == 1 {
				want = "assistant"
			}
			if j == 0 && m.Role == "system" {
				return nil, fileError(path, "conversation %q: a system message first is not read; fold it into the first user message", c.ID)
			}
			if m.Role != want {
				return nil, fileError(path, "conversation %q message %d: role %q, want %q (turns alternate, user first)", c.ID, j, m.Role, want)
			}
			toks = append(toks, tok.Count(m.Content))
		}
		convs = append(convs, toks)
	}
	return convs, nil
}

// maxBlockIDs bounds the block ids a dataset builds (2^24, 128 MiB):
// past it the request count or the prompts are too large to describe
// block by block.
const maxBlockIDs = 1 << 24

// conversationRequests turns message tokens into the round-robin
// requests: request (c, k) has the tokens of messages 0..2k of
// conversation c in, message 2k+1's out (a last user message without an
// answer makes no request). A conversation's requests share one array of
// block ids, each request's prompt a prefix of it: token t of a
// conversation is the same token in every turn that holds it (the last,
// partial block included: the engine hashes only whole blocks), so
// memory follows the conversations' length, not turns × length.
func conversationRequests(path string, convs [][]int, common, blockSize, numPrompts int) (*Conversations, error) {
	r := &Conversations{BlockSize: blockSize, Count: len(convs)}
	maxTurns := 0
	for _, c := range convs {
		r.Turns += len(c) / 2
		maxTurns = max(maxTurns, len(c)/2)
	}
	if r.Turns == 0 {
		return nil, fileError(path, "no conversation has a user message with an answer")
	}
	n := r.Turns
	if numPrompts > 0 {
		n = min(n, numPrompts)
	}
	// prompt[c][k]: the tokens of messages 0..2k of conversation c.
	prompt := make([][]int, len(convs))
	for c, toks := range convs {
		sum := 0
		for k := 0; 2*k+1 < len(toks); k++ {
			for _, t := range toks[max(2*k-1, 0) : 2*k+1] {
				sum += t
			}
			if sum > workload.MaxTokens {
				return nil, fileError(path, "conversation %d turn %d: a prompt of %d tokens exceeds %d", c, k, sum, workload.MaxTokens)
			}
			prompt[c] = append(prompt[c], sum)
		}
	}
	// The requests kept: the first n in round-robin order.
	type req struct{ c, k int }
	order := make([]req, 0, n)
	last := make([]int, len(convs)) // blocks of each conversation's last request kept
	for k := 0; k < maxTurns && len(order) < n; k++ {
		for c := range convs {
			if k < len(prompt[c]) && len(order) < n {
				order = append(order, req{c, k})
				last[c] = (prompt[c][k] + blockSize - 1) / blockSize
			}
		}
	}
	ids := make([][]int64, len(convs))
	total := 0
	for c, b := range last {
		if total += b; total > maxBlockIDs {
			return nil, fileError(path, "the turns kept span more than %d blocks of %d tokens: give fewer --num-prompts", maxBlockIDs, blockSize)
		}
		ids[c] = make([]int64, b)
		for j := range ids[c] {
			if j < common/blockSize {
				ids[c][j] = int64(j) + 1 // the prefix every conversation shares
			} else {
				ids[c][j] = int64(c+1)<<32 | int64(j) // this conversation's
			}
		}
	}
	for _, q := range order {
		in := prompt[q.c][q.k]
		r.Pairs = append(r.Pairs, workload.Pair{Input: in, Output: max(convs[q.c][2*q.k+1], 1)})
		r.Blocks = append(r.Blocks, ids[q.c][:(in+blockSize-1)/blockSize:(in+blockSize-1)/blockSize])
	}
	return r, nil
}

// A distribution is one of bench_dataset.py's: constant, uniform,
// lognormal (by average and median_ratio, or mean and sigma), zipf or
// poisson, with an optional cap max.
type distribution struct {
	Distribution string   `json:"distribution"`
	Value        *float64 `json:"value"`
	Min          *float64 `json:"min"`
	Max          *float64 `json:"max"`
	Average      *float64 `json:"average"`
	MedianRatio  *float64 `json:"median_ratio"`
	Mean         *float64 `json:"mean"`
	Sigma        *float64 `json:"sigma"`
	Alpha        *float64 `json:"alpha"`
	// cdf is a poisson's distribution function, built on the first draw.
	cdf []float64
}

// sample draws n values as bench_dataset.py does (a lognormal by average
// is scaled so the n draws average exactly that, then capped), each
// rounded and at most workload.MaxTokens.
func (d *distribution) sample(at string, n int, rng *rand.Rand) ([]int, error) {
	bad := func(format string, args ...any) ([]int, error) {
		return nil, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...))
	}
	if d == nil {
		return make([]int, n), nil // an optional field left out: 0
	}
	need := func(name string, v *float64) error {
		if v == nil || math.IsNaN(*v) || math.IsInf(*v, 0) {
			return fmt.Errorf("%s: %s distribution needs a finite %q", at, d.Distribution, name)
		}
		return nil
	}
	out := make([]float64, n)
	switch d.Distribution {
	case "constant":
		if err := need("value", d.Value); err != nil {
			return nil, err
		}
		for i := range out {
			out[i] = *d.Value
		}
	case "uniform":
		if err := need("min", d.Min); err != nil {
			return nil, err
		}
		if err := need("max", d.Max); err != nil {
			return nil, err
		}
		lo, hi := math.Round(*d.Min), math.Round(*d.Max)
		if !(lo > 0 && lo <= hi && hi <= workload.MaxTokens) {
			return bad("uniform min %v and max %v must satisfy 0 < min <= max <= %d", *d.Min, *d.Max, workload.MaxTokens)
		}
		for i := range out {
			out[i] = lo + float64(rng.IntN(int(hi-lo)+1))
		}
	case "lognormal":
		mu, sigma := 0.0, 0.0
		if d.Average != nil {
			ratio := 0.85 // bench_dataset.py's default median_ratio
			if d.MedianRatio != nil {
				ratio = *d.MedianRatio
			}
			if !(*d.Average >= 1 && *d.Average <= workload.MaxTokens) || !(ratio > 0 && ratio < 1) {
				return bad("lognormal average %v must be from 1 to %d and median_ratio %v in (0, 1)", *d.Average, workload.MaxTokens, ratio)
			}
			sigma, mu = math.Sqrt(2*math.Log(1/ratio)), math.Log(*d.Average*ratio)
		} else {
			if err := need("mean", d.Mean); err != nil {
				return nil, err
			}
			if err := need("sigma", d.Sigma); err != nil {
				return nil, err
			}
			mu, sigma = *d.Mean, *d.Sigma
			if !(mu > 0 && mu < 25 && sigma >= 0 && sigma < 10) {
				return bad("lognormal mean %v must be in (0, 25) and sigma %v in [0, 10)", mu, sigma)
			}
		}
		sum := 0.0
		for i := range out {
			out[i] = math.Exp(mu + sigma*rng.NormFloat64())
			sum += out[i]
		}
		if d.Average != nil && sum > 0 {
			for i := range out {
				out[i] *= *d.Average / (sum / float64(n))
			}
		}
	case "zipf":
		if err := need("alpha", d.Alpha); err != nil {
			return nil, err
		}
		if !(*d.Alpha > 1 && *d.Alpha < 100) {
			return bad("zipf alpha %v must be in (1, 100)", *d.Alpha)
		}
		for i := range out {
			out[i] = float64(zipf(*d.Alpha, rng))
		}
	case "poisson":
		if err := need("alpha", d.Alpha); err != nil {
			return nil, err
		}
		if !(*d.Alpha >= 0 && *d.Alpha <= 700) {
			return bad("poisson alpha %v must be in [0, 700]", *d.Alpha)
		}
		if d.cdf == nil {
			d.cdf = poissonCDF(*d.Alpha)
		}
		for i := range out {
			out[i] = float64(sort.SearchFloat64s(d.cdf, rng.Float64()))
		}
	default:
		return bad("unknown distribution %q (constant, uniform, lognormal, zipf, poisson)", d.Distribution)
	}
	vals := make([]int, n)
	for i, x := range out {
		if d.Max != nil && d.Distribution != "uniform" && x > *d.Max {
			x = *d.Max
		}
		if !(x >= 0) {
			return bad("draws %v must be >= 0", x)
		}
		vals[i] = int(math.Round(math.Min(x, workload.MaxTokens)))
	}
	return vals, nil
}

// zipf draws from P(k) ∝ k^-a, k >= 1, by numpy's rejection method
// (which rejects only draws past 2^63), capped at workload.MaxTokens as
// every draw is after it.
func zipf(a float64, rng *rand.Rand) int {
	am1 := a - 1
	b := math.Pow(2, am1)
	for {
		u, v := 1-rng.Float64(), rng.Float64()
		x := math.Floor(math.Pow(u, -1/am1))
		if !(x >= 1 && x <= math.MaxInt64) {
			continue
		}
		t := math.Pow(1+1/x, am1)
		if v*x*(t-1)/(b-1) <= t/b {
			return int(math.Min(x, workload.MaxTokens))
		}
	}
}

// poissonCDF returns the Poisson(lambda) distribution function at 0, 1,
// ..., up to lambda + 20·sqrt(lambda) + 20, past which the tail is below
// 1e-80; a draw is the first k whose value exceeds a uniform (exact
// inversion, O(log) a draw).
func poissonCDF(lambda float64) []float64 {
	top := int(lambda + 20*math.Sqrt(lambda) + 20)
	cdf := make([]float64, top+1)
	sum := 0.0
	for k := range cdf {
		lg, _ := math.Lgamma(float64(k) + 1)
		sum += math.Exp(float64(k)*math.Log(lambda) - lambda - lg)
		if lambda == 0 {
			sum = 1
		}
		cdf[k] = sum
	}
	return cdf
}

// Tokens of the fixed texts bench_dataset.py puts in generated user
// turns, approximated (Llama 3 tokenizer): the per-conversation tag
// "{id} is a nice number... " and the instruction "Please rewrite the
// following text and add more content: ", and the "{id}, " before a
// conversation's own prefix.
const genTag, genBase, genPrefixSep = 7, 10, 2

// generateConversations samples the message tokens of a
// generate_conversations configuration as bench_dataset.py builds them:
// turns per conversation at least 2 and rounded up to even; a user turn
// of num_tokens tokens (at least the tag and instruction), the first one
// also starting with the common prefix (counted in its num_tokens) and
// followed by the conversation's own prefix_num_tokens; answers of
// prompt_output num_tokens (at least 1). It returns the common prefix's
// tokens too.
func generateConversations(path string, data []byte, rng *rand.Rand) ([][]int, int, error) {
	var c struct {
		Filetype         string `json:"filetype"`
		NumConversations *int   `json:"num_conversations"`
		PromptInput      *struct {
			NumTurns     *distribution `json:"num_turns"`
			CommonPrefix *distribution `json:"common_prefix_num_tokens"`
			Prefix       *distribution `json:"prefix_num_tokens"`
			NumTokens    *distribution `json:"num_tokens"`
		} `json:"prompt_input"`
		PromptOutput *struct {
			NumTokens *distribution `json:"num_tokens"`
		} `json:"prompt_output"`
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, 0, jsonError(path, data, err, "want a generate_conversations object")
	}
	switch {
	case c.Filetype != "generate_conversations":
		return nil, 0, fileError(path, "filetype %q: want \"generate_conversations\" (or a JSON list of conversations)", c.Filetype)
	case c.NumConversations == nil || *c.NumConversations < 1 || *c.NumConversations > maxConversations:
		return nil, 0, fileError(path, "num_conversations must be from 1 to %d", maxConversations)
	case c.PromptInput == nil || c.PromptInput.NumTurns == nil || c.PromptInput.NumTokens == nil || c.PromptInput.Prefix == nil:
		return nil, 0, fileError(path, "prompt_input needs num_turns, prefix_num_tokens and num_tokens")
	case c.PromptOutput == nil || c.PromptOutput.NumTokens == nil:
		return nil, 0, fileError(path, "prompt_output needs num_tokens")
	}
	n := *c.NumConversations
	in := c.PromptInput
	fail := func(err error) ([][]int, int, error) { return nil, 0, fileError(path, "%v", err) }
	turns, err := in.NumTurns.sample("prompt_input.num_turns", n, rng)
	if err != nil {
		return fail(err)
	}
	prefix, err := in.Prefix.sample("prompt_input.prefix_num_tokens", n, rng)
	if err != nil {
		return fail(err)
	}
	commonDraw, err := in.CommonPrefix.sample("prompt_input.common_prefix_num_tokens", 1, rng)
	if err != nil {
		return fail(err)
	}
	common := commonDraw[0]
	convs := make([][]int, n)
	total := 0
	for i := range convs {
		t := min(max(turns[i], 2), maxMessages)
		t += t % 2
		if total += t; total > maxTotalMessages {
			return nil, 0, fileError(path, "the conversations would hold more than %d messages: give fewer num_conversations or num_turns", maxTotalMessages)
		}
		user, err := in.NumTokens.sample("prompt_input.num_tokens", t, rng)
		if err != nil {
			return fail(err)
		}
		answer, err := c.PromptOutput.NumTokens.sample("prompt_output.num_tokens", t, rng)
		if err != nil {
			return fail(err)
		}
		msgs := make([]int, t)
		for j := range msgs {
			if j%2 == 1 {
				msgs[j] = max(answer[j], 1)
				continue
			}
			fixed := genTag + genBase
			if j == 0 {
				fixed += common
			}
			msgs[j] = max(user[j], genBase, fixed)
			if j == 0 && prefix[i] > 0 {
				msgs[j] += prefix[i] + genPrefixSep
			}
		}
		convs[i] = msgs
	}
	return convs, common, nil
}
