package dataset

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/servesim/servesim/workload"
)

// FuzzReaders: any file read as ShareGPT, BurstGPT, custom, Spec-Bench,
// an hf dataset's rows, a multi-turn file or sonnet lines
// gives at most NumPrompts rows of lengths a run accepts, or an error
// wrapping ErrDataset; never a panic.
func FuzzReaders(f *testing.F) {
	for _, name := range []string{"sharegpt.json", "burstgpt.csv", "custom.jsonl", "bad.jsonl"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(b, uint8(3), false)
		}
	}
	f.Add([]byte(`[{"conversations": [{"value": "`+"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"+`"}, {"value": "abcdefghijklmnopq"}]}] trailing`), uint8(1), true)
	f.Add([]byte("Timestamp,Model,Request tokens,Response tokens\n1,GPT-4,1e300,NaN\n2,GPT-4,-1,5\n"), uint8(200), false)
	f.Add([]byte(`{"prompt": "x", "output_tokens": 1e18}`+"\n"+`{"turns": []}`), uint8(0), false)
	f.Add([]byte(`{"filetype": "generate_conversations", "num_conversations": 2, "prompt_input": {"num_turns": {"distribution": "zipf", "alpha": 1.01}, "prefix_num_tokens": {"distribution": "lognormal", "mean": 24, "sigma": 9}, "num_tokens": {"distribution": "poisson", "alpha": 700}}, "prompt_output": {"num_tokens": {"distribution": "uniform", "min": 1, "max": 3}}}`), uint8(4), false)
	f.Add([]byte(`[{"id": "a", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}]`), uint8(2), true)
	f.Add([]byte("line one\nline two\n"), uint8(3), false)
	f.Fuzz(func(t *testing.T, data []byte, n uint8, inOrder bool) {
		dir := t.TempDir()
		readers := []struct {
			file string
			read func(string, Options) ([]workload.Pair, error)
		}{
			{"f.json", ShareGPT},
			{"f.csv", BurstGPT},
			{"f.jsonl", func(p string, o Options) ([]workload.Pair, error) { o.OutputLen = -1; return Custom(p, o) }},
			{"g.jsonl", func(p string, o Options) ([]workload.Pair, error) { o.OutputLen = 7; return SpecBench(p, "", o) }},
			{"h.jsonl", func(p string, o Options) ([]workload.Pair, error) {
				pairs, _, err := HF(HFOptions{Path: p}, o)
				return pairs, err
			}},
			{"m.json", func(p string, o Options) ([]workload.Pair, error) {
				r, err := MultiTurn(p, 16, o)
				if err != nil {
					return nil, err
				}
				if len(r.Blocks) != len(r.Pairs) {
					t.Fatalf("multi-turn: %d block lists for %d requests", len(r.Blocks), len(r.Pairs))
				}
				return r.Pairs, nil
			}},
			{"s.txt", func(p string, o Options) ([]workload.Pair, error) {
				o.NumPrompts = max(o.NumPrompts, 1)
				r, err := Sonnet(p, SonnetOptions{InputLen: 60, OutputLen: 5, PrefixLen: 20, BlockSize: 16}, o)
				if err != nil {
					return nil, err
				}
				return r.Pairs, nil
			}},
		}
		for _, r := range readers {
			path := filepath.Join(dir, r.file)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			o := Options{NumPrompts: int(n), DisableShuffle: inOrder, Rand: rand.New(rand.NewPCG(1, uint64(n)))}
			pairs, err := r.read(path, o)
			if err != nil {
				if !errors.Is(err, ErrDataset) {
					t.Fatalf("%s: error %v does not wrap ErrDataset", r.file, err)
				}
				continue
			}
			if len(pairs) == 0 || (n > 0 && len(pairs) > int(n)) {
				t.Fatalf("%s: %d rows for NumPrompts %d", r.file, len(pairs), n)
			}
			if err := (workload.Oversampled{Pairs: pairs}).Validate(); err != nil {
				t.Fatalf("%s: rows a run refuses: %v", r.file, err)
			}
		}
	})
}
