package batching

import (
	"testing"

	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// BenchmarkOffloadPrefixRepetition runs 20,000 requests that each start
// with one of 400 prompts of 2,048 tokens (820k tokens, five times the
// 9,362-block KV pool of Qwen2.5-7B on an H100 at 8 GiB) on one engine with
// a 64 GiB host buffer, in summary mode: every step stores, most
// admissions load. It reports simulated requests per wall-clock second
// and the loads; the golden check is that every request completes and the
// host serves hits. Measure it on an idle machine.
func BenchmarkOffloadPrefixRepetition(b *testing.B) {
	c := offloadModel(b, 8, nil)
	c.Deployment.KVCacheMemory = 8 << 30
	c.StepTime, c.MaxNumBatchedTokens, c.MaxNumSeqs = prefillTime, 8192, 256
	c.KVOffload = DefaultKVOffload(64)
	const n = 20_000
	cfg := sim.Config{
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 40},
			Lengths: workload.PrefixRepetition{PrefixLen: 2048, SuffixLen: 256, NumPrefixes: 400, OutputLen: 64}},
		Server: c, Requests: n, Seed: 1, SummaryOnly: true,
	}
	var loads float64
	b.ReportAllocs()
	for b.Loop() {
		res, err := sim.Run(cfg)
		if err != nil {
			b.Fatal(err)
		}
		if res.Completed != n {
			b.Fatalf("completed %d of %d", res.Completed, n)
		}
		if loads, _ = res.Stat("kv_offload_loads"); loads == 0 {
			b.Fatal("no loads from the host")
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "sim_req/s")
	b.ReportMetric(loads, "loads")
}
