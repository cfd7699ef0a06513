package dataset

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/workload"
)

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Two conversations counted by hand (ceil(chars/4) + 1 a message): "a"
// is 2 tokens, 60 characters 16. Round robin: both first turns, then the
// second turn of the longer one; a turn's prompt is all messages before
// its answer, and its full 16-token blocks are those of the turn before
// it when they lie in the history.
func TestMultiTurnConversations(t *testing.T) {
	t.Parallel()
	m60 := strings.Repeat("x", 60)
	path := writeTemp(t, "conv.json", `[
 {"id": "A", "messages": [{"role": "user", "content": "`+m60+`"}, {"role": "assistant", "content": "`+m60+`"},
                          {"role": "user", "content": "a"}, {"role": "assistant", "content": "a"}, {"role": "user", "content": "a"}]},
 {"id": "B", "messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "`+m60+`"}]}
]`)
	r, err := MultiTurn(path, 16, opts(0))
	if err != nil {
		t.Fatal(err)
	}
	want := []workload.Pair{{Input: 16, Output: 16}, {Input: 2, Output: 16}, {Input: 34, Output: 2}}
	if r.Count != 2 || r.Turns != 3 || len(r.Pairs) != 3 {
		t.Fatalf("%d conversations, %d turns, %v; want 2, 3 and %v", r.Count, r.Turns, r.Pairs, want)
	}
	for i, p := range want {
		if r.Pairs[i] != p {
			t.Errorf("request %d: %+v, want %+v", i, r.Pairs[i], p)
		}
	}
	// A's second turn (34 tokens: 3 blocks) starts with its first turn's
	// one full block; B shares nothing with A.
	if len(r.Blocks[2]) != 3 || r.Blocks[2][0] != r.Blocks[0][0] || r.Blocks[1][0] == r.Blocks[0][0] || r.Blocks[2][2] == r.Blocks[2][1] {
		t.Errorf("blocks %v: want A's turn 2 to begin with A's turn 1 block and B's to be its own", r.Blocks)
	}
	if r, _ := MultiTurn(path, 16, opts(2)); len(r.Pairs) != 2 {
		t.Errorf("--num-prompts 2: %d requests", len(r.Pairs))
	}
	for text, msg := range map[string]string{
		`[{"id": "A", "messages": [{"role": "assistant", "content": "x"}]}]`: `role "assistant", want "user"`,
		`[{"id": "A", "messages": [{"role": "user", "content": "x"}]}]`:      "no conversation has a user message with an answer",
		`[{"id": "A", "messages": []}]`:                                      "0 messages",
		`{"filetype": "x"}`:                                                  `filetype "x"`,
		`nonsense`:                                                           "want a JSON list",
	} {
		if _, err := MultiTurn(writeTemp(t, "bad.json", text), 16, opts(0)); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: err %v, want %q", text, err, msg)
		}
	}
}

// A generate_conversations file of constants, worked by hand: 3 turns
// round up to 4 (2 requests a conversation); the first user turn is
// max(num_tokens 200, common 50 + tag 7 + instruction 10) = 200 plus the
// conversation's prefix 30 and its 2-token separator, 232; the second
// 200; answers 40. Requests: 232 in, then 232 + 40 + 200 = 472 in. The
// common prefix's 3 full blocks (50 / 16) are the same in every
// conversation.
func TestMultiTurnGenerate(t *testing.T) {
	t.Parallel()
	path := writeTemp(t, "gen.json", `{"filetype": "generate_conversations", "num_conversations": 3, "text_files": ["pg1184.txt"],
  "prompt_input": {"num_turns": {"distribution": "constant", "value": 3}, "common_prefix_num_tokens": {"distribution": "constant", "value": 50},
    "prefix_num_tokens": {"distribution": "constant", "value": 30}, "num_tokens": {"distribution": "constant", "value": 200}},
  "prompt_output": {"num_tokens": {"distribution": "constant", "value": 40}}}`)
	r, err := MultiTurn(path, 16, opts(0))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pairs) != 6 || r.Pairs[0] != (workload.Pair{Input: 232, Output: 40}) || r.Pairs[3] != (workload.Pair{Input: 472, Output: 40}) {
		t.Fatalf("%v: want 3 × {232 40} then 3 × {472 40}", r.Pairs)
	}
	for i := range r.Blocks {
		for j := range 3 {
			if r.Blocks[i][j] != r.Blocks[0][j] {
				t.Errorf("request %d block %d: %d, want the common prefix's %d", i, j, r.Blocks[i][j], r.Blocks[0][j])
			}
		}
		if i > 0 && i < 3 && r.Blocks[i][3] == r.Blocks[0][3] {
			t.Errorf("request %d shares block 3 with another conversation", i)
		}
	}
}

// The distributions against theory: a lognormal by average has exactly
// that sample mean (bench_dataset.py rescales), a zipf(2) draws 1 with
// probability 1/ζ(2) = 6/π², a Poisson(4) has mean 4; each within 4
// standard errors of 20000 draws.
func TestMultiTurnDistributions(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	f := func(v float64) *float64 { return &v }
	const n = 20000
	ln, err := (&distribution{Distribution: "lognormal", Average: f(1000)}).sample("x", n, rng)
	if err != nil {
		t.Fatal(err)
	}
	if m := mean(ln); math.Abs(m-1000) > 0.5 { // rounding each draw moves the mean by < 0.5
		t.Errorf("lognormal average 1000: sample mean %.2f", m)
	}
	z, _ := (&distribution{Distribution: "zipf", Alpha: f(2)}).sample("x", n, rng)
	ones := 0
	for _, v := range z {
		if v == 1 {
			ones++
		}
	}
	p := 6 / (math.Pi * math.Pi)
	if got := float64(ones) / n; math.Abs(got-p) > 4*math.Sqrt(p*(1-p)/n) {
		t.Errorf("zipf(2): P(1) = %.4f, want %.4f", got, p)
	}
	po, _ := (&distribution{Distribution: "poisson", Alpha: f(4)}).sample("x", n, rng)
	if m := mean(po); math.Abs(m-4) > 4*math.Sqrt(4.0/n) {
		t.Errorf("poisson(4): mean %.3f", m)
	}
	capped, _ := (&distribution{Distribution: "lognormal", Average: f(1000), Max: f(1200)}).sample("x", 100, rng)
	for _, v := range capped {
		if v > 1200 {
			t.Fatalf("draw %d over max 1200", v)
		}
	}
	for _, d := range []distribution{{Distribution: "uniform", Min: f(5), Max: f(2)}, {Distribution: "zipf", Alpha: f(1)}, {Distribution: "beta"}, {Distribution: "constant"}} {
		if _, err := d.sample("x", 1, rng); err == nil {
			t.Errorf("%+v: no error", d)
		}
	}
}

func mean(v []int) float64 {
	s := 0.0
	for _, x := range v {
		s += float64(x)
	}
	return s / float64(len(v))
}
