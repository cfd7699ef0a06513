package dataset

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

func mustLoadBPE(t testing.TB, path string) *BPE {
	t.Helper()
	tok, err := LoadBPE(path)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// The three hand-made tokenizers of testdata/tokenizer share a 37-token
// vocabulary (ids 0-36: single bytes, the merges' results, and "lo",
// which no merge makes) and 13 merges, ranked 0-12:
//
//	h e, l l, he ll, hell o, Ġ w, o r, Ġw or, Ġwor l, Ġworl d, Ġ Ġ, Ã ©, 1 2, ' s
//
// Ġ is a space, Ċ a newline, Ã© the two bytes of é. Each expected id list
// below was worked out by hand from the file's pipeline.
func TestBPEHandMade(t *testing.T) {
	t.Parallel()
	const d = "testdata/tokenizer/"
	llama := mustLoadBPE(t, d+"llama3-like.json") // Llama 3: Split + ByteLevel, BOS 37, ignore_merges
	qwen := mustLoadBPE(t, d+"qwen-like.json")    // Qwen: NFC, single digits, no BOS, merges as pairs
	gpt2 := mustLoadBPE(t, d+"gpt2-like.json")    // RoBERTa-style: ByteLevel regex, prefix space, <s> 37 ... </s> 38
	tests := []struct {
		name string
		tok  *BPE
		text string
		want []int
	}{
		{"llama empty: BOS only", llama, "", []int{37}},
		{"llama word in vocab", llama, "hello", []int{37, 26}},
		{"llama space joins the next word", llama, "hello world", []int{37, 26, 31}},
		{`llama \s+(?!\S) leaves the last space to the word`, llama, "hello  world", []int{37, 26, 22, 31}},
		{"llama punctuation run", llama, "hello world!!", []int{37, 26, 31, 0, 0}},
		{"llama digits in threes", llama, "1234", []int{37, 34, 4, 5}},
		{"llama UTF-8 bytes merge", llama, "café", []int{37, 7, 6, 10, 33}},
		{"llama contraction", llama, "it's", []int{37, 12, 17, 35}},
		{"llama newlines, a word without space", llama, "hello\n\nworld", []int{37, 26, 21, 21, 18, 28, 13, 8}},
		{"llama added token in the text", llama, "<|end_of_text|>hello", []int{37, 38, 26}},
		{"llama trailing space", llama, "hello ", []int{37, 26, 22}},
		{"llama merges by rank when the piece is not in vocab", llama, "  hello", []int{37, 22, 22, 26}},
		{"llama ignore_merges takes a vocab piece whole", llama, "lo", []int{37, 36}},
		{"llama bytes outside the vocabulary are dropped", llama, "z", []int{37}},

		{"qwen empty: no special token", qwen, "", nil},
		{"qwen merges build a word", qwen, "hello", []int{26}},
		{"qwen without ignore_merges", qwen, "lo", []int{13, 14}},
		{"qwen single digits", qwen, "1234", []int{2, 3, 4, 5}},
		{"qwen NFC composes e + U+0301", qwen, "cafe\u0301", []int{7, 6, 10, 33}},
		{"qwen merges across a space", qwen, "hello world", []int{26, 31}},
		{"qwen added tokens, special or not", qwen, "<think>hello<|endoftext|>", []int{38, 26, 37}},
		{"qwen two spaces", qwen, "hello  world", []int{26, 22, 31}},

		{"roberta prefix space, cls and sep", gpt2, "hello", []int{37, 22, 26, 38}},
		{"roberta GPT-2 regex", gpt2, "hello world", []int{37, 22, 26, 31, 38}},
		{"roberta no second space", gpt2, " world", []int{37, 31, 38}},
		{"roberta digits after a space", gpt2, "hello 123", []int{37, 22, 26, 22, 34, 4, 38}},
		{"roberta added token, then a prefix space", gpt2, "<s>hello", []int{37, 37, 22, 26, 38}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.tok.Encode(tt.text)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
			}
			if n := tt.tok.Count(tt.text); n != len(tt.want) {
				t.Errorf("Count(%q) = %d, want %d", tt.text, n, len(tt.want))
			}
		})
	}
}

func TestBPEString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, want string
	}{
		// 37 vocabulary tokens and 2 added ones outside it.
		{"testdata/tokenizer/llama3-like.json", "tokenizer.json at testdata/tokenizer/llama3-like.json (39 tokens in vocabulary)"},
		{"testdata/tokenizer/qwen-like.json", "tokenizer.json at testdata/tokenizer/qwen-like.json (41 tokens in vocabulary)"},
	}
	for _, tt := range tests {
		if got := mustLoadBPE(t, tt.path).String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}

// The pre-tokenizer regexes of Llama 3, Qwen 2 and 3, and DeepSeek-V3, as
// their tokenizer.json files write them.
const (
	llama3Pattern = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
	// The third of DeepSeek-V3's three Split pre-tokenizers.
	deepseekV3Pattern = "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\\r\\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
	qwenPattern       = `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
)

// The pre-tokenizer regexes of GPT-2 and Llama 3 cut text where
// Oniguruma would: Unicode \s, and \s+(?!\S) giving a run's last space to
// the next piece. Pieces worked out by hand from the patterns.
func TestSplitter(t *testing.T) {
	t.Parallel()
	const llama3 = llama3Pattern
	tests := []struct {
		pattern, text string
		want          []string
	}{
		{llama3, "hello  world", []string{"hello", " ", " world"}},
		{llama3, "hello world  ", []string{"hello", " world", "  "}},
		{llama3, "a\u3000\u3000b", []string{"a", "\u3000", "\u3000b"}}, // U+3000 is \s in Oniguruma
		{llama3, "x\n\n  y", []string{"x", "\n\n", " ", " y"}},
		{llama3, "  \n", []string{"  \n"}},
		{llama3, "12345", []string{"123", "45"}},
		{llama3, "IT'S", []string{"IT", "'S"}},
		{llama3, "don't!\n", []string{"don", "'t", "!\n"}},
		{llama3, "\tx", []string{"\tx"}},
		{llama3, " 1", []string{" ", "1"}},
		{deepseekV3Pattern, "One line\nTwo lines\n\nThree", []string{"One", " line", "\n", "Two", " lines", "\n\n", "Three"}},
		{deepseekV3Pattern, "(foo) x  y", []string{"(foo", ")", " x", " ", " y"}},
		{gpt2Pattern, "hello  world", []string{"hello", " ", " world"}},
		{gpt2Pattern, "a\n\n", []string{"a", "\n\n"}},
		{gpt2Pattern, "hello 123!?", []string{"hello", " 123", "!?"}},
		{gpt2Pattern, "x \u00a0y", []string{"x", " ", "\u00a0", "y"}}, // a no-break space is \s: not punctuation
	}
	for _, tt := range tests {
		sp, err := newSplitter(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		if got := sp.split(tt.text, false, false, nil); !slices.Equal(got, tt.want) {
			t.Errorf("split(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}

// Split keeps or removes the matches, or with invert the text between.
func TestSplitBehaviors(t *testing.T) {
	t.Parallel()
	sp, err := newSplitter(`\s+`)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		removed, invert bool
		want            []string
	}{
		{false, false, []string{"a", " ", "b", "  ", "c"}},
		{true, false, []string{"a", "b", "c"}},
		{true, true, []string{" ", "  "}},
		{false, true, []string{"a", " ", "b", "  ", "c"}},
	}
	for _, tt := range tests {
		if got := sp.split("a b  c", tt.removed, tt.invert, nil); !slices.Equal(got, tt.want) {
			t.Errorf("removed %v, invert %v: %q, want %q", tt.removed, tt.invert, got, tt.want)
		}
	}
}

// Goroutines may share a BPE (its word cache is locked).
func TestBPEConcurrent(t *testing.T) {
	t.Parallel()
	tok := mustLoadBPE(t, "testdata/tokenizer/llama3-like.json")
	texts := []string{"hello world", "  hello", "café 1234", "it's lo"}
	want := make([]int, len(texts))
	for i, s := range texts {
		want[i] = mustLoadBPE(t, "testdata/tokenizer/llama3-like.json").Count(s)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i, s := range texts {
				if got := tok.Count(s); got != want[i] {
					t.Errorf("Count(%q) = %d in a goroutine, want %d", s, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

// Matching in windows finds the matches that matching in the whole text
// finds, for the patterns of GPT-2, Llama 3 and Qwen, on random text rich
// in what their alternatives disagree on (runs of spaces and newlines,
// contractions, digits, multi-byte characters), with windows small
// enough that most matches need one to grow.
func TestSplitterWindows(t *testing.T) {
	t.Parallel()
	patterns := map[string]string{"gpt2": gpt2Pattern, "llama3": llama3Pattern, "qwen": qwenPattern, "deepseek-v3": deepseekV3Pattern}
	alphabet := []string{"a", "l", "s", "B", "é", "語", " ", " ", "\n", "\r", "\t", "\u3000", "1", "!", "'", "(", "\u00a0", "\u0301"}
	rng := rand.New(rand.NewPCG(3, 4))
	for name, p := range patterns {
		sp, err := newSplitter(p)
		if err != nil {
			t.Fatal(err)
		}
		for range 500 {
			var b strings.Builder
			for range rng.IntN(200) {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			text := b.String()
			var whole, windowed [][2]int
			sp.matchesIn(text, len(text)+1, 0, func(lo, hi int) { whole = append(whole, [2]int{lo, hi}) })
			sp.matchesIn(text, 4, windowMargin, func(lo, hi int) { windowed = append(windowed, [2]int{lo, hi}) })
			if !slices.Equal(whole, windowed) {
				t.Fatalf("%s: %q: windows give %v, the whole text %v", name, text, windowed, whole)
			}
		}
	}
}

// Files that are not byte-level BPE, or that use what servesim cannot
// reproduce, fail with the file's name and the part at fault.
func TestLoadBPEErrors(t *testing.T) {
	t.Parallel()
	base, err := os.ReadFile("testdata/tokenizer/llama3-like.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(m map[string]any)) string {
		var m map[string]any
		if err := json.Unmarshal(base, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	model := func(m map[string]any) map[string]any { return m["model"].(map[string]any) }
	dir := t.TempDir()
	tests := []struct {
		name, content, want string
	}{
		{"not JSON", "{", "want a Hugging Face tokenizer.json"},
		{"unigram", edit(func(m map[string]any) { model(m)["type"] = "Unigram" }), `model.type "Unigram"`},
		{"SentencePiece-style BPE", edit(func(m map[string]any) { m["pre_tokenizer"] = nil }), "pre_tokenizer is null"},
		{"Metaspace", edit(func(m map[string]any) { m["pre_tokenizer"] = map[string]any{"type": "Metaspace"} }), `pre_tokenizer "Metaspace" is not supported`},
		{"merge outside the vocabulary", edit(func(m map[string]any) { model(m)["merges"] = []any{"x y"} }), `model.merges[0] "x" "y"`},
		{"look-behind", edit(func(m map[string]any) {
			m["pre_tokenizer"] = map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `(?<=a)b`}, "behavior": "Isolated", "invert": false},
				map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": false}}}
		}), "look-around"},
		{"normalizer", edit(func(m map[string]any) { m["normalizer"] = map[string]any{"type": "Replace"} }), `normalizer "Replace"`},
		{"subword prefix", edit(func(m map[string]any) { model(m)["continuing_subword_prefix"] = "##" }), "continuing_subword_prefix"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".json")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadBPE(path)
			if err == nil || !errors.Is(err, ErrDataset) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadBPE: %v; want an ErrDataset naming %s and %q", err, path, tt.want)
			}
		})
	}
	if _, err := LoadBPE(dir); err == nil || !strings.Contains(err.Error(), "no tokenizer.json") {
		t.Errorf("LoadBPE(a directory without tokenizer.json): %v", err)
	}
	if _, err := LoadBPE(filepath.Join(dir, "absent.json")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadBPE(absent file): %v", err)
	}
}

// LoadBPE reads the tokenizer.json of a directory.
func TestLoadBPEDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/tokenizer/qwen-like.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	tok := mustLoadBPE(t, dir)
	if want := "tokenizer.json at " + filepath.Join(dir, "tokenizer.json") + " (41 tokens in vocabulary)"; tok.String() != want {
		t.Errorf("String() = %q, want %q", tok.String(), want)
	}
}

// gpt2JSON writes GPT-2's tokenizer.json, made from public facts: its
// 50,000 merges (testdata/tokenizer/gpt2-merges.txt.gz), its vocabulary
// (the 256 bytes in bytes_to_unicode order, then each merge's result in
// merge order, then <|endoftext|> as 50256), and its pipeline (ByteLevel
// with the GPT-2 regex, no prefix space, no special tokens added).
func gpt2JSON(t testing.TB) string {
	t.Helper()
	f, err := os.Open("testdata/tokenizer/gpt2-merges.txt.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	vocab := map[string]int{}
	var order []byte
	for b := range 256 {
		if bytesToRunes[b] == rune(b) {
			order = append(order, byte(b))
		}
	}
	for b := range 256 {
		if bytesToRunes[b] != rune(b) {
			order = append(order, byte(b))
		}
	}
	for i, b := range order {
		vocab[string(bytesToRunes[b])] = i
	}
	var merges []string
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#version") || line == "" {
			continue
		}
		a, b, _ := strings.Cut(line, " ")
		vocab[a+b] = len(vocab)
		merges = append(merges, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	vocab["<|endoftext|>"] = len(vocab)
	file := map[string]any{
		"added_tokens":   []any{map[string]any{"id": 50256, "content": "<|endoftext|>", "special": true}},
		"normalizer":     nil,
		"pre_tokenizer":  map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true},
		"post_processor": map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
		"model":          map[string]any{"type": "BPE", "vocab": vocab, "merges": merges},
	}
	data, err := json.Marshal(file)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// GPT-2's real merges give the ids that tiktoken's tests
// (tests/test_encoding.py, encoding "gpt2") and the transformers
// GPT2Tokenizer documentation publish.
func TestBPEGPT2(t *testing.T) {
	t.Parallel()
	tok := mustLoadBPE(t, gpt2JSON(t))
	if tok.VocabSize() != 50257 {
		t.Errorf("VocabSize() = %d, want 50257", tok.VocabSize())
	}
	tests := []struct {
		text string
		want []int
	}{
		{"", nil},
		{"hello world", []int{31373, 995}},
		{"Hello world", []int{15496, 995}},
		{" Hello world", []int{18435, 995}},
		{"hello <|endoftext|>", []int{31373, 220, 50256}},
		{"\u001ca", []int{216, 64}},
		{"a\n\n", []int{64, 628}},
		{" 日本語とEnglish 12345!\n", []int{10545, 245, 98, 17312, 105, 45739, 252, 30201, 15823, 17031, 2231, 0, 198}},
		{"0", []int{15}},
		{"0000", []int{2388}},
		{"00000000", []int{8269}},
		{"000000000", []int{10535, 830}},
		{"0000000000000000", []int{25645}},
		{"00000000000000000", []int{8269, 10535, 830}},
	}
	for _, tt := range tests {
		if got := tok.Encode(tt.text); !slices.Equal(got, tt.want) {
			t.Errorf("Encode(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

// A long run without spaces (one pre-tokenized piece) merges in
// O(n log n), not O(n²).
func TestBPELongPiece(t *testing.T) {
	t.Parallel()
	tok := mustLoadBPE(t, "testdata/tokenizer/qwen-like.json")
	// "hell" + "o" merges to one token; "!" has no merge.
	if got := tok.Count(strings.Repeat("hello", 20000) + strings.Repeat("!", 100000)); got != 20000+100000 {
		t.Errorf("Count = %d, want %d", got, 120000)
	}
}

func BenchmarkBPEGPT2(b *testing.B) {
	tok := mustLoadBPE(b, gpt2JSON(b))
	text := strings.Repeat("The quick brown fox jumps over the lazy dog; 12345 times!\n", 100)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		tok.Count(text)
	}
}

func BenchmarkLoadBPEGPT2(b *testing.B) {
	path := gpt2JSON(b)
	for b.Loop() {
		mustLoadBPE(b, path)
	}
}
