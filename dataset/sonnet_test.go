package dataset

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The prompts vLLM's SonnetDataset builds, counted by hand with the
// approximate tokenizer (ceil(chars/4) + 1): the base instruction is 53
// characters, 15 tokens; a line "abcdefgh\n" 4 tokens. --sonnet-input-len
// 115 takes round((115-15)/4) = 25 lines, --sonnet-prefix-len 55 the
// first round((55-15)/4) = 10; a prompt is 53 + 25*9 = 278 characters,
// 71 tokens, and the shared text 53 + 10*9 = 143 characters, 37 tokens:
// two full 16-token blocks every prompt shares.
func TestSonnet(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sonnet.txt")
	os.WriteFile(path, []byte(strings.Repeat("abcdefgh\n", 30)), 0o644)
	o := opts(5)
	r, err := Sonnet(path, SonnetOptions{InputLen: 115, OutputLen: 7, PrefixLen: 55, BlockSize: 16}, o)
	if err != nil {
		t.Fatal(err)
	}
	if r.Lines != 25 || r.Prefix != 10 || r.PrefixTokens != 37 || len(r.Pairs) != 5 {
		t.Fatalf("%d lines, %d shared, %d shared tokens, %d requests; want 25, 10, 37, 5", r.Lines, r.Prefix, r.PrefixTokens, len(r.Pairs))
	}
	seen := map[int64]int{}
	for i, p := range r.Pairs {
		if p.Input != 71 || p.Output != 7 || len(r.Blocks[i]) != 5 { // ceil(71/16)
			t.Errorf("request %d: %+v with %d blocks, want 71 in, 7 out, 5 blocks", i, p, len(r.Blocks[i]))
		}
		for _, id := range r.Blocks[i] {
			seen[id]++
		}
	}
	shared := 0
	for _, n := range seen {
		switch n {
		case 5:
			shared++
		case 1:
		default:
			t.Errorf("a block id appears in %d of 5 prompts, want all or one", n)
		}
	}
	if shared != 2 {
		t.Errorf("%d block ids shared by every prompt, want 2 (37 shared tokens / 16)", shared)
	}
}

func TestSonnetErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	short := filepath.Join(dir, "short.txt")
	os.WriteFile(short, []byte(strings.Repeat("abcdefgh\n", 30)), 0o644)
	long := filepath.Join(dir, "long.txt")
	os.WriteFile(long, []byte(strings.Repeat("x", 400)+"\n"), 0o644) // 101 tokens a line
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, nil, 0o644)
	for _, c := range []struct {
		path string
		s    SonnetOptions
		want string
	}{
		{short, SonnetOptions{InputLen: 15, OutputLen: 1, BlockSize: 16}, "must be higher than the base prompt length (15 tokens)"},
		{short, SonnetOptions{InputLen: 100, OutputLen: 1, PrefixLen: 200, BlockSize: 16}, "--sonnet-prefix-len 200 must be at most --sonnet-input-len 100"},
		// One line of 101 tokens: every draw is 116 tokens, over 80 (vLLM
		// would redraw forever).
		{long, SonnetOptions{InputLen: 80, OutputLen: 1, BlockSize: 16}, "no draw of 1 lines fits --sonnet-input-len 80 tokens in 1000 tries"},
		{empty, SonnetOptions{InputLen: 80, OutputLen: 1, BlockSize: 16}, "is empty"},
		{short, SonnetOptions{InputLen: 80, OutputLen: 0, BlockSize: 16}, "--sonnet-output-len 0"},
		{filepath.Join(dir, "none.txt"), SonnetOptions{InputLen: 80, OutputLen: 1, BlockSize: 16}, "no such file"},
	} {
		if _, err := Sonnet(c.path, c.s, opts(2)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: err %v, want one containing %q", c.s, err, c.want)
		}
	}
}
