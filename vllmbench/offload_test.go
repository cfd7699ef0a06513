package vllmbench

import (
	"io"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/scenario"
)

// TestKVOffloadingBackendFlag: --kv-offloading-backend lmcache reaches the
// engine as LMCache's backend, which on prefix repetition reports its
// synchronous transfer time; an unknown backend is an error naming the
// flag (in the command line's words, FlagFieldError).
func TestKVOffloadingBackendFlag(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) (*Flags, error) {
		fs, _, o := define("bench")
		base := []string{"--model", "Qwen/Qwen2.5-7B-Instruct", "--num-prompts", "200", "--request-rate", "4", "--seed", "1",
			"--dataset-name", "prefix_repetition", "--prefix-repetition-prefix-len", "2048", "--kv-offloading-size", "16"}
		if err := fs.Parse(append(base, args...)); err != nil {
			t.Fatal(err)
		}
		return o, o.Resolve(fs, io.Discard)
	}
	o, err := parse("--kv-offloading-backend", "lmcache")
	if err != nil {
		t.Fatal(err)
	}
	cfg, res := simulate(t, &o.Options)
	off := cfg.Server.(batching.Config).KVOffload
	if off == nil || off.Backend != batching.OffloadBackendLMCache || off.Size != 16 {
		t.Fatalf("KVOffload %+v, want the lmcache backend with 16 GiB", off)
	}
	if v, ok := res.Stat("kv_offload_sync_time"); !ok || !(v > 0) {
		t.Errorf("kv_offload_sync_time %v (reported %v), want > 0", v, ok)
	}
	o, err = parse("--kv-offloading-backend", "mooncake")
	if err == nil {
		var sc *scenario.Scenario
		if sc, err = o.Scenario(); err == nil {
			_, err = sc.Config()
		}
	}
	if err == nil || !strings.HasPrefix(FlagFieldError(err), `--kv-offloading-backend: "mooncake" is not modelled: only "native"`) {
		t.Errorf("an unknown backend: %v", err)
	}
}
