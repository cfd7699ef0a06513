package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/servesim/servesim/cost"
)

// Table writes residuals as a Markdown table with the columns of
// docs/fidelity.md: source, setup, metric, measured, predicted, error.
// Latencies are in ms, throughput in tokens/s.
func Table(rs []Residual) string {
	var b strings.Builder
	b.WriteString("| source | setup | metric | measured | predicted | error |\n|---|---|---|---:|---:|---:|\n")
	for _, r := range rs {
		scale, unit := 1000.0, " ms"
		if r.Metric == OutputThroughput {
			scale, unit = 1, " tok/s"
		}
		source := r.Point.Source
		if strings.HasPrefix(r.Point.ID, source+"#") {
			source = r.Point.ID // one of a file's appended results
		}
		fmt.Fprintf(&b, "| %s | %s %s | %s | %.1f%s | %.1f%s | %+.1f%% |\n", source, r.Point.GPU, r.Point.Setup(),
			r.Metric, scale*r.Measured, unit, scale*r.Predicted, unit, 100*r.Error())
	}
	return b.String()
}

// Summary writes the median |error| of each metric among metrics, over
// all residuals and per group (group(point); nil: none), as a Markdown
// table.
func Summary(rs []Residual, metrics []Metric, group func(Point) string) string {
	groups := []string{"all"}
	by := map[string][]Residual{"all": rs}
	if group != nil {
		for _, r := range rs {
			g := group(r.Point)
			if _, ok := by[g]; !ok {
				groups = append(groups, g)
			}
			by[g] = append(by[g], r)
		}
		sort.Strings(groups[1:])
	}
	var b strings.Builder
	b.WriteString("| metric |")
	for _, g := range groups {
		b.WriteString(" " + g + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(groups)) + "\n")
	for _, m := range metrics {
		fmt.Fprintf(&b, "| %s |", m)
		for _, g := range groups {
			e, n := MedianAbsError(by[g], m)
			if n == 0 {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %.1f%% |", 100*e)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Worst returns the n residuals with the largest |error|, largest first.
func Worst(rs []Residual, n int) []Residual {
	s := append([]Residual(nil), rs...)
	sort.SliceStable(s, func(i, j int) bool { return math.Abs(s[i].Error()) > math.Abs(s[j].Error()) })
	return s[:min(n, len(s))]
}

// Reason gives the likeliest cause of a large error on r's point, from
// its setup: a KV cache too small for the clients (the run queues on
// memory, and the measured TTFT depends on how vLLM orders the queue), the
// simulated closed loop's lockstep at low concurrency, the prefill
// estimate, the start of the benchmark at high concurrency, short outputs,
// or none known.
func (s Simulator) Reason(r Residual, profile cost.Profile) string {
	eng, err := s.Engine(r.Point, profile)
	if err != nil {
		return err.Error()
	}
	pool, err := eng.Pool()
	clients := groupShare(r.Point.Concurrency, r.Point.DP)
	if need := clients * (r.Point.Input + r.Point.Output); err == nil && float64(need) > 0.9*float64(pool.Tokens) {
		share := fmt.Sprintf("KV-bound: %d clients × %d tokens need %.0f%% of the simulated %d-token KV pool", clients, r.Point.Input+r.Point.Output,
			100*float64(need)/float64(pool.Tokens), pool.Tokens)
		if r.Error() > 0 {
			return share + "; the real run held them with less queueing, so its pool was larger (more memory free for the cache than the simulated gpu_memory_utilization leaves)"
		}
		return share + "; vLLM's real pool is smaller (CUDA graphs, activations), so requests queue for memory"
	}
	switch {
	case r.Metric == TTFT && r.Point.Concurrency <= 32 && r.Error() > 0:
		return "closed-loop lockstep: simulated clients that finish in one step resend together and share prefill steps for the whole run; real clients drift apart"
	case r.Metric == TTFT && r.Point.Concurrency <= 32:
		return "prefill estimate: TTFT is a few prefills here, priced by the profile's GEMM and attention efficiencies"
	case r.Metric == TTFT:
		return "high concurrency: TTFT is mostly the queue of prefills after the benchmark's simultaneous start"
	case r.Metric == TPOT && r.Point.Output <= 128:
		return "short outputs: TPOT is dominated by the prefills of other requests mixed into decode steps"
	}
	return "—"
}

// Contradicted returns, by index into pts, the points whose measurements
// contradict others of the same setup (model, GPU, precision, KV cache,
// parallelism, max_num_seqs and lengths, any vLLM version; not the token
// budget, which the silicon rows grow with the clients), with why: a decode of c clients measured
// faster (TPOT under contradictedTPOT times) than every point of the setup
// with from c/8 to fewer than c clients, which no engine that decodes every
// client's sequence does: TPOT grows with the clients, and vLLM versions
// differ by 15% or so on these setups. The fastest of those points is the
// comparison, so one slow outlier among them does not condemn the rest. A
// planner should not trust such a row; docs/fidelity.md gives this reason
// for it before any modelling one.
func Contradicted(pts []Point) map[int]string {
	out := map[int]string{}
	for _, idx := range bySetup(pts, func(p Point) bool { return p.Concurrency > 0 && p.Measured.TPOT > 0 }, false) {
		for _, i := range idx {
			p := pts[i]
			fastest := -1
			for _, j := range idx {
				q := pts[j]
				if q.Concurrency < p.Concurrency && 8*q.Concurrency >= p.Concurrency &&
					(fastest < 0 || q.Measured.TPOT < pts[fastest].Measured.TPOT) {
					fastest = j
				}
			}
			if fastest >= 0 && p.Measured.TPOT < contradictedTPOT*pts[fastest].Measured.TPOT {
				q := pts[fastest]
				out[i] = fmt.Sprintf("contradicted: TPOT %.2f ms at %d clients is below the same setup's %.2f ms at %d; not a decode of %d sequences",
					1000*p.Measured.TPOT, p.Concurrency, 1000*q.Measured.TPOT, q.Concurrency, p.Concurrency)
			}
		}
	}
	return out
}

// bySetup groups the indices of the points of pts that keep accepts by
// their setup: model, GPU, precision, KV cache, parallelism, max_num_seqs
// where it caps the clients (else none: the silicon rows raise it with the
// clients) and lengths, and with clients the client count; not the vLLM
// version or the token budget (the silicon rows grow it with the clients).
func bySetup(pts []Point, keep func(Point) bool, clients bool) map[setupKey][]int {
	by := map[setupKey][]int{}
	for i, p := range pts {
		if !keep(p) {
			continue
		}
		capped := 0
		if p.MaxNumSeqs > 0 && p.Concurrency > 0 && p.MaxNumSeqs < p.Concurrency {
			capped = p.MaxNumSeqs
		}
		k := setupKey{p.Model, p.GPU, p.Precision, p.KVCache, p.TP, p.DP, p.EP, capped, p.Input, p.Output, 0}
		if clients {
			k.clients = p.Concurrency
		}
		by[k] = append(by[k], i)
	}
	return by
}

// setupKey is a point's setup as bySetup compares them.
type setupKey struct {
	model, gpu, precision, kv                   string
	tp, dp, ep, maxSeqs, input, output, clients int
}

// contradictedTPOT is the largest ratio of a point's TPOT to the setup's
// fastest at fewer clients that Contradicted calls a contradiction.
const contradictedTPOT = 0.75

// VersionGaps returns, by index into pts, the points whose measurement of
// metric m differs by more than versionGap from that of the same setup
// (model, GPU, precision, KV cache, parallelism, max_num_seqs, lengths and
// clients) on another recorded vLLM version, with both values: a gap the
// version makes, which no model of the hardware can tell from the setup.
// Points without a recorded version are not compared.
func VersionGaps(pts []Point, m Metric) map[int]string {
	out := map[int]string{}
	for _, idx := range bySetup(pts, func(p Point) bool { return p.BackendVersion != "" && p.Measured.Get(m) > 0 }, true) {
		for _, i := range idx {
			p := pts[i]
			far := -1
			for _, j := range idx {
				q := pts[j]
				if q.BackendVersion == p.BackendVersion {
					continue
				}
				if gap := math.Abs(math.Log(p.Measured.Get(m) / q.Measured.Get(m))); gap > math.Log1p(versionGap) &&
					(far < 0 || gap > math.Abs(math.Log(p.Measured.Get(m)/pts[far].Measured.Get(m)))) {
					far = j
				}
			}
			if far >= 0 {
				q := pts[far]
				out[i] = fmt.Sprintf("vLLM version: %s measured %.1f ms on vLLM %s, %.1f ms on %s for the same setup (%+.0f%%)",
					m, 1000*p.Measured.Get(m), p.BackendVersion, 1000*q.Measured.Get(m), q.BackendVersion, 100*(p.Measured.Get(m)/q.Measured.Get(m)-1))
			}
		}
	}
	return out
}

// versionGap is the relative difference between two vLLM versions'
// measurements of one setup above which VersionGaps reports it.
const versionGap = 0.3

// Spread is how far repeated measurements of one setup fall apart: over
// Pairs pairs of measurements, Median is the median of larger/smaller − 1
// (NaN when Pairs is 0). A prediction that knows the setup but not which
// of two such runs it faces does best at their geometric mean, and is then
// off by √(1 + Median) − 1 against each in the middle (MiddleError).
type Spread struct {
	Pairs  int
	Median float64
}

// MiddleError returns √(1 + Median) − 1: how far a prediction at the
// geometric mean of a pair whose spread is Median is from either run.
func (s Spread) MiddleError() float64 { return math.Sqrt(1+s.Median) - 1 }

// Repeats returns the spread of metric m between measurements of one setup
// (model, GPU, precision, KV cache, parallelism, max_num_seqs, lengths and
// clients, as VersionGaps compares them): over the pairs run on the same
// recorded vLLM version and over the pairs run on two different ones.
// Points without a recorded version are left out, and so are pairs that
// are one run listed twice (Duplicate).
func Repeats(pts []Point, m Metric) (same, across Spread) {
	var s, a []float64
	for _, idx := range bySetup(pts, func(p Point) bool { return p.BackendVersion != "" && p.Measured.Get(m) > 0 }, true) {
		for x, i := range idx {
			for _, j := range idx[x+1:] {
				p, q := pts[i], pts[j]
				if Duplicate(p, q) {
					continue
				}
				spread := max(p.Measured.Get(m), q.Measured.Get(m))/min(p.Measured.Get(m), q.Measured.Get(m)) - 1
				if p.BackendVersion == q.BackendVersion {
					s = append(s, spread)
				} else {
					a = append(a, spread)
				}
			}
		}
	}
	return Spread{len(s), median(s)}, Spread{len(a), median(a)}
}

// Duplicate says whether two points are one run listed twice: their TTFT
// and TPOT, the two measurements of a silicon-CSV row, are both measured
// and agree within duplicateTolerance (E2E is left out: ReadSiliconCSV
// derives it from the two, multiplying TPOT's rounding by the output
// length). The CSV lists some runs two or three times, to float noise or
// printed to two decimals of a millisecond (7.4233 and 7.42 ms); two
// separate runs do not agree that closely on TTFT and TPOT together.
func Duplicate(p, q Point) bool {
	for _, m := range []Metric{TTFT, TPOT} {
		a, b := p.Measured.Get(m), q.Measured.Get(m)
		if !(a > 0 && b > 0 && math.Abs(a-b) <= duplicateTolerance) {
			return false
		}
	}
	return true
}

// duplicateTolerance is the difference in seconds within which Duplicate
// takes two measurements of a metric for the same: half the last digit of
// a value printed to two decimals of a millisecond, with room for float
// noise.
const duplicateTolerance = 5.5e-6
