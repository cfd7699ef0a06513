package vllmbench

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/servesim/servesim/internal/jsonobj"
	"github.com/servesim/servesim/scenario"
	"github.com/servesim/servesim/sim"
)

// TestServesimResultIsResultJSON: the servesim block takes sim.Result's
// own members from its typed Fields, byte for byte what the Result's JSON
// holds (the members it was copied from before), in the same order after
// the setup: for a vLLM engine with an SLO (server counters, attainment)
// and for an overloaded one stopped early (stopped_by, null latencies).
func TestServesimResultIsResultJSON(t *testing.T) {
	t.Parallel()
	for _, yaml := range []string{
		"requests: 40\nworkload: {arrival: {rate: 5}}\nslo: {ttft_ms: 500, tpot_ms: 50}\n",
		"requests: 400\nmax_in_system: 20\nworkload: {arrival: {rate: 500}}\nserver: {max_num_seqs: 2}\n",
	} {
		sc, err := scenario.Parse([]byte(yaml), "bench.yaml")
		if err != nil {
			t.Fatal(err)
		}
		_, res := runScenario(t, sc)
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		all, err := jsonobj.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		var want jsonobj.Object
		for _, m := range all {
			if !vllmResultKey(m.Key) {
				want = append(want, m)
			}
		}
		o := &Options{Model: sc.Server.Model, Backend: "vllm", RequestRate: 5, Burstiness: 1, NumPrompts: sc.Requests,
			DatasetName: "random", Percentiles: []float64{99}, Metrics: []string{"ttft", "tpot"}}
		setup, rest := servesimResult(o, sc, res)
		var doc resultDoc
		for _, m := range append(setup, rest...) {
			if err := doc.put(m.Key, m.Value, false); err != nil {
				t.Fatal(err)
			}
		}
		if len(doc) < len(want) {
			t.Fatalf("%d members, want at least %d", len(doc), len(want))
		}
		got := doc[len(doc)-len(want):]
		for i, m := range want {
			if got[i].key != m.Key || !bytes.Equal(got[i].raw, m.Value) {
				t.Errorf("member %d: %s = %s, want %s = %s", i, got[i].key, got[i].raw, m.Key, m.Value)
			}
		}
		if res.StoppedBy != sim.StopNone && want.Get("stopped_by") == nil {
			t.Errorf("run stopped by %q, but its JSON has no stopped_by", res.StoppedBy)
		}
		t.Logf("%d members compared; stopped by %q", len(want), res.StoppedBy)
	}
}
