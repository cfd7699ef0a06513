package dataset

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/workload"
)

// Every shipped length row names a dataset vLLM knows, a source and a
// method, and its means are the published totals divided by the
// published counts (the numbers quoted in the sources).
func TestHFLengthTable(t *testing.T) {
	t.Parallel()
	published := map[string][2]float64{ // total prompt tokens, requests
		"Aeala/ShareGPT_Vicuna_unfiltered": {229711, 1000},
		"lmarena-ai/VisionArena-Chat":      {94327, 1000},
		"likaixin/InstructCoder":           {261136, 2048},
	}
	rows := HFLengthTable()
	if len(rows) != len(published) {
		t.Fatalf("%d rows, want %d", len(rows), len(published))
	}
	for _, l := range rows {
		known := false
		for _, d := range HFDatasets {
			known = known || d.ID == l.ID
		}
		if !known || l.Split == "" || !strings.HasPrefix(l.Source, "https://") || l.Method == "" || l.Tokenizer == "" {
			t.Errorf("%+v: want a dataset of HFDatasets with a split, tokenizer, source URL and method", l)
		}
		p := published[l.ID]
		if math.Abs(l.Prompt-p[0]/p[1]) > 5e-4 {
			t.Errorf("%s: prompt mean %v, want %v / %v", l.ID, l.Prompt, p[0], p[1])
		}
	}
}

func TestHF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rows := filepath.Join(dir, "mt-bench.jsonl")
	// "abcdefgh" is ceil(8/4)+1 = 3 tokens, "abcd" 2, "abcdefghijkl" 4.
	os.WriteFile(rows, []byte(`{"turns": ["abcdefgh", "second turn"]}
{"problem": "abcd", "solution": "abcdefghijkl"}
`), 0o644)
	for _, c := range []struct {
		name string
		h    HFOptions
		want []workload.Pair // in any order
		err  string
	}{
		// ConversationDataset: the reply's mean as the output.
		{"conversation", HFOptions{Path: "Aeala/ShareGPT_Vicuna_unfiltered"}, []workload.Pair{{Input: 230, Output: 203}}, ""},
		// VisionArena fixes the output at its DEFAULT_OUTPUT_LEN, 128.
		{"vision arena", HFOptions{Path: "lmarena-ai/VisionArena-Chat", Split: "train"}, []workload.Pair{{Input: 94, Output: 128}}, ""},
		{"hf-output-len", HFOptions{Path: "likaixin/InstructCoder", OutputLen: 64}, []workload.Pair{{Input: 128, Output: 64}}, ""},
		{"instructcoder default", HFOptions{Path: "likaixin/InstructCoder"}, []workload.Pair{{Input: 128, Output: 200}}, ""},
		// A local file: MT-Bench's first turn with 256 out; AIMO's
		// solution as the output.
		{"local file", HFOptions{Path: rows, Name: "philschmid/mt-bench"}, []workload.Pair{{Input: 3, Output: 256}, {Input: 2, Output: 4}}, ""},
		{"not published", HFOptions{Path: "philschmid/mt-bench"}, nil, "MTBenchDataset are not published"},
		{"unknown id", HFOptions{Path: "Aeala/ShareGPT_Vicuna_unfilterd"}, nil, "nearest: Aeala/ShareGPT_Vicuna_unfiltered"},
		{"split", HFOptions{Path: "lmarena-ai/VisionArena-Chat", Split: "test"}, nil, "--hf-split test of lmarena-ai/VisionArena-Chat: lengths are published for split train only"},
		{"subset", HFOptions{Path: "Aeala/ShareGPT_Vicuna_unfiltered", Subset: "x"}, nil, "--hf-subset x"},
		{"output too long", HFOptions{Path: "likaixin/InstructCoder", OutputLen: workload.MaxTokens + 1}, nil, "--hf-output-len"},
		{"directory", HFOptions{Path: dir}, nil, "is a directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := opts(4)
			pairs, _, err := HF(c.h, o)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !errors.Is(err, ErrDataset) {
					t.Fatalf("err %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range pairs {
				found := false
				for _, w := range c.want {
					found = found || p == w
				}
				if !found {
					t.Errorf("request %+v, want one of %v", p, c.want)
				}
			}
			if len(c.want) == 1 && len(pairs) != 4 {
				t.Errorf("%d requests, want --num-prompts 4", len(pairs))
			}
		})
	}
}

// The lengths of vLLM's VisionArena benchmark: only the mean prompt is
// published, and the class fixes 128 output tokens.
func ExampleHF() {
	pairs, _, err := HF(HFOptions{Path: "lmarena-ai/VisionArena-Chat", Split: "train"}, opts(3))
	fmt.Println(pairs, err)
	// Output: [{94 128} {94 128} {94 128}] <nil>
}
