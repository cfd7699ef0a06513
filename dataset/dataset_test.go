package dataset

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/servesim/servesim/workload"
)

func opts(n int) Options { return Options{NumPrompts: n, Rand: rand.New(rand.NewPCG(1, 2))} }

func TestApprox(t *testing.T) {
	t.Parallel()
	for text, want := range map[string]int{"": 1, "abcd": 2, "abcde": 3, "héllo wörld": 4} {
		if got := (Approx{Special: 1}).Count(text); got != want {
			t.Errorf("Count(%q) = %d, want %d", text, got, want)
		}
	}
}

// ShareGPT keeps two-turn conversations that pass vLLM's length filter;
// Requests oversamples them to the count asked for.
func TestShareGPT(t *testing.T) {
	t.Parallel()
	pairs, err := ShareGPT("testdata/sharegpt.json", opts(5))
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 2 || Requests(opts(5), len(pairs)) != 5 {
		t.Fatalf("%d rows making %d requests, want the 2 valid rows making 5 (oversampled)", len(pairs), Requests(opts(5), len(pairs)))
	}
	valid := map[workload.Pair]bool{{Input: 17, Output: 14}: true, {Input: 20, Output: 20}: true} // "ok"/"sure" fail the 4-token minimum
	for _, p := range pairs {
		if !valid[p] {
			t.Errorf("request %+v is not one of the valid conversations", p)
		}
	}
	o := opts(5)
	o.NoOversample, o.OutputLen = true, 100
	pairs, err = ShareGPT("testdata/sharegpt.json", o)
	if err != nil || len(pairs) != 2 || pairs[0].Output != 100 || Requests(o, len(pairs)) != 2 {
		t.Errorf("--no-oversample --sharegpt-output-len 100: %v, %v; want 2 rows of output 100 making 2 requests", pairs, err)
	}
}

func TestBurstGPT(t *testing.T) {
	t.Parallel()
	pairs, err := BurstGPT("testdata/burstgpt.csv", opts(4))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		if p != (workload.Pair{Input: 1087, Output: 230}) && p != (workload.Pair{Input: 417, Output: 276}) {
			t.Errorf("%+v is not a GPT-4 row with a response", p)
		}
	}
	if len(pairs) != 2 || Requests(opts(4), 2) != 4 {
		t.Errorf("%d rows, want the 2 GPT-4 rows (the other 2 requests are drawn again)", len(pairs))
	}
}

func TestCustom(t *testing.T) {
	t.Parallel()
	o := opts(0)
	o.OutputLen = -1
	pairs, err := Custom("testdata/custom.jsonl", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 3 {
		t.Errorf("--num-prompts 0 takes every row: got %d, want 3", len(pairs))
	}
	outs := map[int]bool{}
	for _, p := range pairs {
		outs[p.Output] = true
	}
	if !outs[64] || !outs[12] || !outs[20] {
		t.Errorf("outputs %v, want each row's output_tokens", outs)
	}
}

// Errors name the file and the line.
func TestErrorsNameLine(t *testing.T) {
	t.Parallel()
	o := opts(2)
	o.OutputLen = -1
	_, err := Custom("testdata/bad.jsonl", o)
	if err == nil || !strings.Contains(err.Error(), "testdata/bad.jsonl:1: output_tokens") {
		t.Errorf("missing output_tokens: %v", err)
	}
	o.OutputLen = 10
	_, err = Custom("testdata/bad.jsonl", o)
	if err == nil || !strings.Contains(err.Error(), `testdata/bad.jsonl:2: "prompt" must be a string`) {
		t.Errorf("a number prompt: %v", err)
	}
	_, err = ShareGPT("testdata/custom.jsonl", opts(1))
	if err == nil || !strings.Contains(err.Error(), "testdata/custom.jsonl:") {
		t.Errorf("JSONL as ShareGPT: %v", err)
	}
	_, err = Custom("testdata/sharegpt.json", o)
	if err == nil || !strings.Contains(err.Error(), ".jsonl") {
		t.Errorf("custom from .json: %v", err)
	}
}
