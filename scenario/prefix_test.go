package scenario

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/workload"
)

// TestPrefixFields: the fields for prefix caching, prefix-aware routing,
// shared prefixes, vLLM's prefix_repetition dataset, sessions and trace
// windows become the library values they name.
func TestPrefixFields(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "m.jsonl"),
		`{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}`+"\n"+
			`{"timestamp": 1000, "input_length": 700, "output_length": 6, "hash_ids": [1, 3]}`+"\n"+
			`{"timestamp": 3000, "input_length": 800, "output_length": 7, "hash_ids": [1, 4]}`+"\n")
	load := func(src string) Scenario {
		t.Helper()
		writeFile(t, filepath.Join(dir, "s.yaml"), src)
		s, err := Load(filepath.Join(dir, "s.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		return *s
	}

	s := load("workload:\n  arrival: {rate: 2}\n  lengths: {kind: random, input: 200, output: 50, prefix_len: 1000}\nserver: {model: qwen2.5-7b, gpu: rtx4090, max_model_len: 32768}\n")
	cfg, err := s.Config()
	if err != nil {
		t.Fatal(err)
	}
	want := workload.SharedPrefix{Tokens: 1000, Lengths: workload.Random{InputLen: 200, OutputLen: 50}}
	if cfg.Workload.Lengths != want {
		t.Errorf("lengths %#v, want %#v", cfg.Workload.Lengths, want)
	}
	if !cfg.Server.(batching.Config).EnablePrefixCaching {
		t.Error("prefix caching is on by default, as in vLLM")
	}

	s = load("workload:\n  arrival: {rate: 2}\n  lengths: {kind: prefix_repetition, num_prefixes: 4}\nserver: {model: qwen2.5-7b, gpu: rtx4090, max_model_len: 32768, enable_prefix_caching: false, replicas: 2, router: prefix-aware, prefix_weight: 2}\n")
	if cfg, err = s.Config(); err != nil {
		t.Fatal(err)
	}
	if got, want := cfg.Workload.Lengths, (workload.PrefixRepetition{PrefixLen: 256, SuffixLen: 256, NumPrefixes: 4, OutputLen: 128}); got != want {
		t.Errorf("lengths %#v, want vLLM's defaults %#v", got, want)
	}
	cl := cfg.Server.(batching.Cluster)
	if cl.Router != batching.PrefixAware || cl.PrefixWeight != 2 || cl.Engine.EnablePrefixCaching {
		t.Errorf("cluster %+v", cl)
	}

	s = load("workload:\n  arrival: {rate: 0.5}\n  sessions: {turns: det:4, think: exp:2, system_prompt: 300}\n  lengths: {kind: fixed, input: 100, output: 40}\n")
	if cfg, err = s.Config(); err != nil {
		t.Fatal(err)
	}
	ss := cfg.Workload.Sessions
	if ss == nil || ss.Turns != (distribution.Deterministic{Value: 4}) || ss.Think != (distribution.Exponential{Rate: 0.5}) || ss.SystemPrompt != 300 {
		t.Errorf("sessions %+v", ss)
	}

	// A window of the trace's times applies to the lengths of the same
	// file, and the hash ids come along.
	s = load("workload:\n  arrival: {process: trace, path: m.jsonl, window_start: 0.5, window_end: 5}\n  lengths: {kind: trace, path: m.jsonl}\n")
	if cfg, err = s.Config(); err != nil {
		t.Fatal(err)
	}
	if r := cfg.Workload.Arrivals.(workload.Replay); len(r.Times) != 2 || r.Times[0] != 0.5 || r.Times[1] != 2.5 {
		t.Errorf("replay %+v, want times 0.5, 2.5 (shifted by the window's start)", r)
	}
	seq := cfg.Workload.Lengths.(workload.Sequence)
	if len(seq.Pairs) != 2 || seq.Pairs[0].Input != 700 || seq.BlockSize != workload.MooncakeBlockSize || seq.Blocks[1][1] != 4 {
		t.Errorf("lengths %+v", seq)
	}
}

func TestPrefixFieldErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ yaml, want string }{
		{"workload:\n  closed: {clients: 2}\n  sessions: {turns: det:2}\n", "workload.sessions: need an open loop"},
		{"workload:\n  arrival: {rate: 1}\n  sessions: {think: exp:1}\n", "workload.sessions.turns: is required"},
		{"workload:\n  arrival: {rate: 1}\n  sessions: {turns: det:2, system_prompt: -1}\n", "workload.sessions.system_prompt: -1 must be >= 0"},
		{"workload:\n  arrival: {rate: 1, window_end: 3}\n", "workload.arrival.window_end: does not apply to process poisson"},
		{"workload:\n  arrival: {rate: 1}\n  lengths: {suffix_len: 3}\n", "workload.lengths.suffix_len: does not apply to kind random"},
		{"workload:\n  arrival: {rate: 1}\n  lengths: {prefix_len: -3}\n", "workload.lengths.prefix_len: -3 must be >= 0"},
		{"workload:\n  arrival: {rate: 1}\nserver: {router: cache}\n", `server.router: unknown router "cache"`},
		{"workload:\n  arrival: {rate: 1}\nserver: {prefix_weight: 3}\n", `server.prefix_weight: applies to router "prefix-aware"`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.yaml), "e.yaml")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %v, want %q", tt.yaml, err, tt.want)
		}
	}
}
