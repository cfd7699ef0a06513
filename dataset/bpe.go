package dataset

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// BPE is a Hugging Face byte-level BPE tokenizer read from its
// tokenizer.json: the tokenizers of GPT-2, Llama 3, Qwen 2 and 3, DeepSeek
// and most recent models. It encodes text as the Rust tokenizers library
// does with add_special_tokens=True, which is how vLLM's client counts
// prompts (len(tokenizer(prompt).input_ids)):
//
//  1. added tokens (<|begin_of_text|>, <think>, ...) written in the text
//     are split out as one token each, leftmost-longest (their lstrip,
//     rstrip and single_word options are not applied);
//  2. the rest is normalized (NFC, NFD, NFKC, NFKD, Lowercase, or a
//     Sequence of them);
//  3. pre-tokenized: Split by a regex (Isolated or Removed pieces), then
//     ByteLevel (optional prefix space and GPT-2 regex), in the order of
//     the file's Sequence;
//  4. each piece's UTF-8 bytes merged by rank (model.merges), or taken
//     whole when model.ignore_merges and the piece is in the vocabulary;
//  5. wrapped in the post_processor's special tokens (TemplateProcessing,
//     RobertaProcessing, BertProcessing, ByteLevel, or a Sequence).
//
// Regexes are Oniguruma's in the file and Go's here: \s means Unicode
// White_Space as in Oniguruma (not Go's ASCII \s), and the one look-around
// such patterns use, the \s+(?!\S) before a final \s+, is emulated.
// LoadBPE rejects what it cannot reproduce (other look-arounds, other
// normalizers and pre-tokenizers, SentencePiece-style BPE without
// ByteLevel, a continuing_subword_prefix) rather than count differently.
// tokenizer_config.json and chat templates are not read.
//
// A BPE is safe for concurrent use.
type BPE struct {
	path      string
	vocabSize int // model vocabulary plus added tokens not in it

	added     addedTokens
	normalize []normalizer
	pre       []preTokenizer

	byteID       [256]int         // id of each byte's symbol, or -1
	vocab        map[string]int   // vocabulary keyed by raw bytes
	merges       map[uint64]merge // (left id, right id) -> merge
	ignoreMerges bool             // a piece in vocab is one token
	unk          int              // unknown-byte id, or -1 to drop it
	fuseUnk      bool             // consecutive unknowns make one token
	prefix       []int            // post-processor ids before the text
	suffix       []int            // and after

	cache wordCache
}

// wordCache remembers the ids of short pieces: words recur, and merging
// costs more than a lookup. It stops growing at maxCachedWords entries.
type wordCache struct {
	mu    sync.RWMutex
	words map[string][]int
}

const (
	maxCachedWords   = 1 << 16
	maxCachedWordLen = 64 // bytes
)

func (c *wordCache) get(w string) ([]int, bool) {
	c.mu.RLock()
	ids, ok := c.words[w]
	c.mu.RUnlock()
	return ids, ok
}

func (c *wordCache) put(w string, ids []int) {
	c.mu.Lock()
	if c.words == nil {
		c.words = map[string][]int{}
	}
	if len(c.words) < maxCachedWords {
		c.words[w] = ids
	}
	c.mu.Unlock()
}

// merge is one entry of model.merges: its rank (line number, lower merges
// first) and the id of the merged symbol.
type merge struct{ rank, id int }

func pairKey(a, b int) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// MaxTokenizerBytes is the largest tokenizer.json LoadBPE reads, bytes.
const MaxTokenizerBytes = 256 << 20

// LoadBPE reads the tokenizer.json at path, or in the directory path.
// Errors name the file and what in it is not a byte-level BPE servesim can
// reproduce; they wrap ErrDataset.
func LoadBPE(path string) (*BPE, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		file := filepath.Join(path, "tokenizer.json")
		if _, err := os.Stat(file); err != nil {
			return nil, fileError(path, "directory holds no tokenizer.json (a Hugging Face model directory with a fast tokenizer has one)")
		}
		path = file
	}
	if st, err := os.Stat(path); err == nil && st.Size() > MaxTokenizerBytes {
		return nil, fileError(path, "%d bytes exceed the tokenizer.json limit of %d bytes (MaxTokenizerBytes, 256 MiB; the largest real ones are under 40 MB)", st.Size(), MaxTokenizerBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDataset, err)
	}
	var f tokenizerFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonError(path, data, err, "want a Hugging Face tokenizer.json")
	}
	t, err := f.build()
	if err != nil {
		return nil, fileError(path, "%v", err)
	}
	t.path = path
	return t, nil
}

// String says which tokenizer counts tokens, for reports.
func (t *BPE) String() string {
	return fmt.Sprintf("tokenizer.json at %s (%d tokens in vocabulary)", t.path, t.vocabSize)
}

// VocabSize is the number of tokens: the model's vocabulary and the added
// tokens outside it (Hugging Face's get_vocab_size(with_added_tokens=True)).
func (t *BPE) VocabSize() int { return t.vocabSize }

// Count returns the number of tokens of text, special tokens included.
func (t *BPE) Count(text string) int { return len(t.Encode(text)) }

// Encode returns the token ids of text, the post-processor's special
// tokens included. It takes time O(n log n) in the length of the longest
// pre-tokenized piece, O(n) otherwise.
func (t *BPE) Encode(text string) []int {
	ids := append([]int(nil), t.prefix...)
	t.added.split(text, func(seg string, id int) {
		if id >= 0 {
			ids = append(ids, id)
			return
		}
		for _, n := range t.normalize {
			seg = n(seg)
		}
		pieces := []string{seg}
		for _, p := range t.pre {
			pieces = p(pieces)
		}
		for _, p := range pieces {
			ids = t.word(p, ids)
		}
	})
	return append(ids, t.suffix...)
}

// word appends the ids of one pre-tokenized piece (raw bytes, which
// byte-level BPE writes as the characters of bytesToRunes).
func (t *BPE) word(w string, ids []int) []int {
	if w == "" {
		return ids
	}
	if t.ignoreMerges {
		if id, ok := t.vocab[w]; ok {
			return append(ids, id)
		}
	}
	cacheable := len(w) <= maxCachedWordLen
	if cacheable {
		if cached, ok := t.cache.get(w); ok {
			return append(ids, cached...)
		}
	}
	sym := make([]int, 0, len(w))
	for i := 0; i < len(w); i++ {
		id := t.byteID[w[i]]
		switch {
		case id >= 0:
			sym = append(sym, id)
		case t.unk < 0:
		case t.fuseUnk && len(sym) > 0 && sym[len(sym)-1] == t.unk:
		default:
			sym = append(sym, t.unk)
		}
	}
	sym = t.mergeAll(sym)
	if cacheable {
		t.cache.put(strings.Clone(w), sym)
	}
	return append(ids, sym...)
}

// mergeAll applies merges to sym, lowest rank first and, among equal
// ranks, leftmost first, as the tokenizers library does. O(n log n).
func (t *BPE) mergeAll(sym []int) []int {
	n := len(sym)
	if n < 2 {
		return sym
	}
	next := make([]int, n)
	prev := make([]int, n)
	for i := range n {
		next[i], prev[i] = i+1, i-1
	}
	next[n-1] = -1
	var h pairHeap
	push := func(i int) {
		if i < 0 || next[i] < 0 {
			return
		}
		if m, ok := t.merges[pairKey(sym[i], sym[next[i]])]; ok {
			h.push(candidate{rank: m.rank, pos: i})
		}
	}
	for i := range n - 1 {
		push(i)
	}
	for len(h) > 0 {
		c := h.pop()
		j := next[c.pos]
		if sym[c.pos] < 0 || j < 0 {
			continue
		}
		m, ok := t.merges[pairKey(sym[c.pos], sym[j])]
		if !ok || m.rank != c.rank {
			continue // stale: a neighbour merged since
		}
		sym[c.pos] = m.id
		sym[j] = -1
		next[c.pos] = next[j]
		if next[j] >= 0 {
			prev[next[j]] = c.pos
		}
		push(prev[c.pos])
		push(c.pos)
	}
	out := sym[:0]
	for i := 0; i >= 0; i = next[i] {
		out = append(out, sym[i])
	}
	return out
}

// candidate is a pair of adjacent symbols that a merge joins: the left
// one's position and the merge's rank.
type candidate struct{ rank, pos int }

// pairHeap is a min-heap of candidates by (rank, pos).
type pairHeap []candidate

func (h pairHeap) less(i, j int) bool {
	return h[i].rank < h[j].rank || h[i].rank == h[j].rank && h[i].pos < h[j].pos
}

func (h *pairHeap) push(c candidate) {
	*h = append(*h, c)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *pairHeap) pop() candidate {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < len(s) && s.less(l, m) {
			m = l
		}
		if r := l + 1; r < len(s) && s.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}

// bytesToRunes is GPT-2's bytes_to_unicode: the printable bytes ! to ~,
// ¡ to ¬ and ® to ÿ stand for themselves, the other 68 bytes, in order,
// for U+0100 onwards (space is Ġ, U+0120; newline Ċ, U+010A).
var bytesToRunes = func() (m [256]rune) {
	n := rune(0)
	for b := range 256 {
		if b >= '!' && b <= '~' || b >= 0xA1 && b <= 0xAC || b >= 0xAE {
			m[b] = rune(b)
		} else {
			m[b] = 256 + n
			n++
		}
	}
	return m
}()

// byteOfRune inverts bytesToRunes: byteOfRune[r] is the byte r stands
// for, or -1; characters from U+0144 on stand for none.
var byteOfRune = func() (m [256 + 68]int) {
	for i := range m {
		m[i] = -1
	}
	for b, r := range bytesToRunes {
		m[r] = b
	}
	return m
}()

// rawBytes turns a byte-level token back into its bytes; ok is false when
// a character stands for no byte (a token byte-level BPE never makes).
func rawBytes(tok string) (string, bool) {
	b := make([]byte, 0, len(tok))
	for _, r := range tok {
		if r < 0 || int(r) >= len(byteOfRune) || byteOfRune[r] < 0 {
			return "", false
		}
		b = append(b, byte(byteOfRune[r]))
	}
	return string(b), true
}

// addedTokens splits text on the added tokens, leftmost-longest.
type addedTokens struct {
	byFirst map[byte][]addedToken // longest first
}

type addedToken struct {
	content string
	id      int
}

func newAddedTokens(toks []addedToken) addedTokens {
	a := addedTokens{byFirst: map[byte][]addedToken{}}
	for _, t := range toks {
		if t.content != "" {
			a.byFirst[t.content[0]] = append(a.byFirst[t.content[0]], t)
		}
	}
	for _, l := range a.byFirst {
		sort.SliceStable(l, func(i, j int) bool { return len(l[i].content) > len(l[j].content) })
	}
	return a
}

// split calls emit with each stretch of plain text (id -1) and each added
// token (its id), in order.
func (a addedTokens) split(s string, emit func(seg string, id int)) {
	start := 0
	for i := 0; i < len(s); i++ {
		for _, t := range a.byFirst[s[i]] {
			if strings.HasPrefix(s[i:], t.content) {
				if start < i {
					emit(s[start:i], -1)
				}
				emit(t.content, t.id)
				start = i + len(t.content)
				i = start - 1
				break
			}
		}
	}
	if start < len(s) {
		emit(s[start:], -1)
	}
}
