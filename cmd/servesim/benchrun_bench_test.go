package main

import (
	"bytes"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/servesim/servesim/internal/memwatch"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/vllmbench"
)

// BenchmarkBenchCLI runs `servesim bench --num-prompts N --quiet` in
// process (N from SERVESIM_BENCH_PROMPTS, default 200,000; the issue's
// size is 1,000,000), full records, and reports its seconds, peak heap
// (with the garbage not yet collected), peak resident set (Linux),
// requests/s, and the ratio of its speed to the library's: a sim.Run of
// the same scenario (the one bench builds from the same flags), summary
// mode, timed in the same process just after.
func BenchmarkBenchCLI(b *testing.B) {
	n := 200_000
	if s := os.Getenv("SERVESIM_BENCH_PROMPTS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("SERVESIM_BENCH_PROMPTS=%q must be an integer >= 1", s)
		}
		n = v
	}
	args := []string{"bench", "--num-prompts", strconv.Itoa(n), "--quiet"}
	// The library's run: the scenario bench builds, in summary mode.
	var o vllmbench.Flags
	var sink bytes.Buffer
	e := &env{stdout: &sink, stderr: &sink, getenv: func(string) string { return "" }}
	if _, err := parseBenchStyle("bench", benchUsage, args[1:], e, &o, nil); err != nil {
		b.Fatal(err)
	}
	sc, err := o.Scenario()
	if err != nil {
		b.Fatal(err)
	}
	lib, err := sc.Config()
	if err != nil {
		b.Fatal(err)
	}
	lib.SummaryOnly = true
	b.ResetTimer()
	var sec float64
	memwatch.ResetPeakRSS()
	peak := memwatch.Peak(0, func() {
		for range b.N {
			t := time.Now()
			if r := runCLI(args...); r.code != 0 {
				b.Fatalf("servesim %v: exit %d: %s", args, r.code, r.stderr)
			}
			sec += time.Since(t).Seconds()
		}
	})
	rss := memwatch.PeakRSS()
	sec /= float64(b.N)
	b.StopTimer()
	t0 := time.Now()
	if _, err := sim.Run(lib); err != nil {
		b.Fatal(err)
	}
	libSec := time.Since(t0).Seconds()

	b.ReportMetric(sec, "s/run")
	b.ReportMetric(float64(peak)/1e6, "peak_MB")
	if rss > 0 {
		b.ReportMetric(rss/1e6, "peak_RSS_MB")
	}
	b.ReportMetric(float64(n)/sec, "requests/s")
	b.ReportMetric(libSec/sec, "x_library")
}
