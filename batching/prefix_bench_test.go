package batching

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/servesim/servesim/internal/memwatch"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// tiled replays a trace's arrival times over and over: request i arrives
// at row i mod n's time plus (i div n) times the trace's span, sped up by
// speedup. It streams, keeping no per-request state.
type tiled struct {
	times   []float64
	span    float64
	speedup float64
}

func (p tiled) Stream(*rand.Rand, int) (workload.Stream, error) { return &tiledStream{p: p}, nil }
func (p tiled) MeanRate() float64 {
	return float64(len(p.times)) / p.span * p.speedup
}
func (p tiled) Validate() error { return nil }

type tiledStream struct {
	p tiled
	i int
}

func (s *tiledStream) Next() float64 {
	n := len(s.p.times)
	t := (s.p.times[s.i%n] + float64(s.i/n)*s.p.span) / s.p.speedup
	s.i++
	return t
}

// BenchmarkTraceReplayCaching replays 1,000,000 requests of the Azure
// conversation trace (its hour tiled 52 times, at twice its rate: about
// 11 req/s) with a 512-token system prompt before every prompt, on one
// Llama-3.1-8B H200 replica with prefix caching, in summary mode. Every
// request but the first finds the system prompt cached (512 of its
// tokens: the golden check); the rest of each prompt is its own. Memory
// is O(requests in the system + cached blocks): the peak heap stays far
// below 200 MB.
func BenchmarkTraceReplayCaching(b *testing.B) {
	tr, err := workload.LoadTrace(shareddata.Path(b, "AzureLLMInferenceTrace_conv.csv"))
	if err != nil {
		b.Fatal(err)
	}
	p := tr.Replay(1)
	// The span of one tile: the hour plus the mean gap, so tiles do not
	// overlap.
	span := p.Times[len(p.Times)-1] + 1/p.MeanRate()
	const n = 1_000_000
	cfg := sim.Config{
		Workload: workload.Workload{
			Arrivals: tiled{times: p.Times, span: span, speedup: 2},
			Lengths:  workload.SharedPrefix{Tokens: 512, Lengths: tr.Sequence()},
		},
		Server:   benchEngine(b),
		Requests: n, Seed: 1, SummaryOnly: true,
	}
	var res *sim.Result
	var peak uint64
	for b.Loop() {
		peak = max(peak, memwatch.Peak(0, func() {
			if res, err = sim.Run(cfg); err != nil {
				b.Fatal(err)
			}
		}))
	}
	hits, _ := res.Stat("prefix_cache_hits")
	if res.Completed != n || res.Stability.Unstable || hits != 512*(n-1) {
		b.Fatalf("completed %d, unstable %v, hits %v: behaviour changed", res.Completed, res.Stability.Unstable, hits)
	}
	rate, _ := res.Stat("prefix_cache_hit_rate")
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(n)*float64(b.N)/sec, "requests/s")
	b.ReportMetric(float64(res.Events)*float64(b.N)/sec, "events/s")
	b.ReportMetric(float64(peak)/1e6, "peak-heap-MB")
	b.ReportMetric(math.Round(rate*1000)/1000, "hit-rate")
	if peak > 200e6 {
		b.Fatalf("peak heap %.0f MB exceeds 200 MB", float64(peak)/1e6)
	}
}
