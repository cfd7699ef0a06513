package main

import (
	"strconv"
	"testing"

	"github.com/servesim/servesim/internal/memwatch"
)

// BenchmarkFullRecords measures the memory of a bench run that keeps every
// request's record (no --summary-only), the cost behind the documented
// limit of scenario.MaxRecordedRequests: the whole command in process
// (workload, engine, records, the percentiles and the summary printed),
// at two sizes, reporting the peak heap's growth per request between them
// (bytes/request, the marginal cost; the fixed part cancels). Two loads:
// a burst (--request-rate 1e9, as the limit's worst case: every request
// waits in the engine's queue at once) of 1-token requests, and a steady
// Poisson load of 512 in / 128 out, where only the records accumulate.
func BenchmarkFullRecords(b *testing.B) {
	const small, large = 100_000, 200_000
	for _, load := range []struct {
		name string
		args []string
	}{
		{"burst", []string{"--request-rate", "1e9", "--random-input-len", "1", "--random-output-len", "1"}},
		{"steady", []string{"--request-rate", "60", "--random-input-len", "512", "--random-output-len", "128"}},
	} {
		b.Run("load="+load.name, func(b *testing.B) {
			peak := func(n int) float64 {
				args := append([]string{"bench", "--num-prompts", strconv.Itoa(n), "--quiet"}, load.args...)
				var r result
				p := memwatch.Peak(0, func() { r = runCLI(args...) })
				if r.code != 0 {
					b.Fatalf("servesim %v: exit %d: %s", args, r.code, r.stderr)
				}
				return float64(p)
			}
			var perRequest float64
			for b.Loop() {
				perRequest = max(perRequest, (peak(large)-peak(small))/(large-small))
			}
			b.ReportMetric(perRequest, "bytes/request")
			b.ReportMetric(perRequest*10_000_000/1e9, "GB-at-limit")
		})
	}
}
