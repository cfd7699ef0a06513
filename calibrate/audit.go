package calibrate

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
)

// AuditLimit is the fraction of a GPU's datasheet peak (dense FLOP/s at
// the row's GEMM precision, or memory bandwidth) above which Audit flags a
// row: no serving engine sustains more than about 90% of either over a
// whole run (the best per-operator GEMMs reach 0.84 of H100's BF16 peak,
// the best KV streams 0.86 of its bandwidth; cost/profiles/h100-sxm.yaml).
const AuditLimit = 0.9

// AuditAdmissionLimit is the fraction of the requests its engine can hold
// at once (AuditRow.Holds) below which Audit flags a closed-loop row
// whose clients all fit: such a run holds nearly every client at once (on
// the visible vLLM rows a median of 99%, 95% of them at least 94%),
// and a KV pool misjudged by the largest step between KV precisions
// (FP8 against BF16, ×2) would still give 1/2.
const AuditAdmissionLimit = 1.0 / 3

// AuditRow is what one measured run implies about the GPU it ran on.
// Every figure is a lower bound on the utilisation the run needed, so a
// figure above AuditLimit means the run did less work than its row says.
type AuditRow struct {
	// Point is the audited run.
	Point Point
	// Compute is the implied fraction of the dense peak FLOP/s (per GPU, at
	// the precision the step model prices the row's GEMMs at): the larger
	// of ComputeTTFT and ComputeThroughput.
	Compute float64
	// ComputeTTFT is the prefill FLOPs at peak that the mean TTFT must
	// hold, over the mean TTFT: a request cannot see its first token
	// before its own prefill has run, and of m requests that arrive
	// together (a closed loop's clients starting at once, an open loop
	// sent all at once up to its cap) the i-th to see its first token
	// waits for i prefills, so the mean TTFT of n measured requests is at
	// least one prefill × (m(m+1)/2 + n − m)/n (QueueFactor; prompts of
	// equal length). It is 0 when TTFT was not measured.
	ComputeTTFT float64
	// ComputeThroughput is the FLOPs per second that the run's completed
	// requests need (prefill and decode of every request at its recorded
	// lengths, times the request rate: clients/E2E for a closed loop by
	// Little's law, output throughput/output length for an open loop),
	// over the peak (0 when no rate is known).
	ComputeThroughput float64
	// Bandwidth is the implied fraction of peak memory bandwidth of a
	// decode step: the weights and the KV cache a step of the run's mean
	// decode batch reads (λ·(output−1)·TPOT sequences by Little's law,
	// at least 1, at most the clients) at mid-output context, over the
	// mean TPOT (0 when TPOT was not measured).
	Bandwidth float64
	// Running is the mean number of a closed loop's requests past their
	// first token, λ·(output−1)·TPOT by Little's law (λ the clients over
	// the mean E2E, per data-parallel group), and Holds the most requests
	// the engine holds at once: the clients (per group), max_num_seqs and
	// the whole requests (input + output tokens) the KV pool holds,
	// whichever is least. Both are 0 for an open loop or a row without
	// TPOT.
	Running float64
	Holds   int
	// DecodeBatch is the decode step's batch that Bandwidth and PerSeqRoom
	// price: the mean decode batch by Little's law, rounded, at least 1
	// and at most the clients, the client's cap and max_num_seqs (1 when
	// no rate is known); 0 when TPOT was not measured.
	DecodeBatch int
	// PerSeqRoom is the most step time per running sequence, in seconds,
	// that the run's decode steps leave beyond their kernels: the mean
	// TPOT less the decode step's weight and KV streaming at peak
	// bandwidth (the floor under Bandwidth), over that step's batch. A
	// step model whose CPU-side time per sequence (a profile's
	// step_overhead.per_seq_s, added to every step) exceeds it predicts
	// that batch slower than the run measured, whatever its other terms;
	// time that overlaps the GPU's step is not bound by it. It is 0 where
	// Bandwidth is, and negative for a run flagged on bandwidth.
	PerSeqRoom float64
	// Flagged is set when Compute or Bandwidth exceeds AuditLimit, or a
	// closed loop ran fewer than AuditAdmissionLimit × Holds requests at
	// once (Running).
	Flagged bool
	// Cause is the likely reason for a flag, "" for a row not flagged.
	Cause string
}

// Audit checks each point against what its GPU can do (AuditRow): the
// compute its prefills need within their TTFT and within the run's request
// rate, and the bandwidth its decode steps need within their TPOT, each as
// a fraction of the datasheet peak per GPU of the point's engine
// (Simulator.Engine). It uses the step model's byte and FLOP counts, not
// its efficiencies, so no profile is involved. Points it cannot build an
// engine for are returned in skipped.
func (s Simulator) Audit(points []Point) (rows []AuditRow, skipped []Skipped) {
	for _, pt := range points {
		r, err := s.audit(pt)
		if err != nil {
			skipped = append(skipped, Skipped{Point: pt, Reason: err})
			continue
		}
		rows = append(rows, r)
	}
	return rows, skipped
}

func (s Simulator) audit(pt Point) (AuditRow, error) {
	g, err := cost.GPU(pt.GPU)
	if pt.Engine != nil {
		g, err = pt.Engine.Deployment.GPU, nil
	}
	if err != nil {
		return AuditRow{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
	}
	eng, err := s.Engine(pt, cost.DefaultProfile(g))
	if err != nil {
		return AuditRow{}, err
	}
	sm, err := eng.Deployment.Compile()
	if err != nil {
		return AuditRow{}, fmt.Errorf("%w: point %s: %w", ErrInvalid, pt.ID, err)
	}
	in, out := float64(pt.Input), float64(pt.Output)
	if in < 1 || out < 1 {
		return AuditRow{}, invalidf("point %s: input %d and output %d must be >= 1", pt.ID, pt.Input, pt.Output)
	}
	// Seconds at peak: the step model's MFU × Time is FLOPs over peak,
	// with each part at its own precision's peak; MBU × Time is bytes
	// over peak bandwidth.
	var pre cost.Batch
	pre.AddPrefill(pt.Input, 0)
	pc := sm.Step(pre)
	prefill := pc.MFU * pc.Time
	dc := sm.Step(cost.DecodeBatch(1, in+out/2))
	decodeToken := dc.MFU * dc.Time

	m := pt.Measured
	r := AuditRow{Point: pt}
	if m.TTFT > 0 {
		r.ComputeTTFT = prefill * QueueFactor(pt, eng.Deployment.DP, eng.DPRouter) / m.TTFT
	}
	rate := requestRate(pt)
	if dp := max(eng.Deployment.DP, 1); dp > 1 && eng.DPRouter != batching.DPFirstGroup {
		rate /= float64(dp)
	}
	r.ComputeThroughput = rate * (prefill + (out-1)*decodeToken)
	r.Compute = max(r.ComputeTTFT, r.ComputeThroughput)
	if m.TPOT > 0 {
		batch := 1.0
		if rate > 0 {
			batch = rate * (out - 1) * m.TPOT
		}
		limit := float64(eng.MaxNumSeqs)
		if pt.Concurrency > 0 {
			limit = min(limit, float64(pt.Concurrency))
		}
		if pt.MaxConcurrency > 0 {
			limit = min(limit, float64(pt.MaxConcurrency))
		}
		if pt.Concurrency > 0 && rate > 0 {
			r.Running, r.Holds = batch, holds(pt, eng)
		}
		batch = math.Round(max(1, min(batch, limit)))
		ds := sm.Step(cost.DecodeBatch(int(batch), in+out/2))
		floor := ds.MBU * ds.Time // the step's reads at peak bandwidth, s
		r.Bandwidth = floor / m.TPOT
		r.DecodeBatch = int(batch)
		r.PerSeqRoom = (m.TPOT - floor) / batch
	}
	r.Flagged = r.Compute > AuditLimit || r.Bandwidth > AuditLimit || r.admissionLimited()
	if r.Flagged {
		r.Cause = auditCause(r)
	}
	return r, nil
}

// holds returns the most requests of closed-loop point pt that engine
// eng holds at once (AuditRow.Holds), per data-parallel group: its
// clients, max_num_seqs and the whole requests its KV pool holds.
func holds(pt Point, eng batching.Config) int {
	clients := pt.Concurrency
	if dp := eng.Deployment.DP; dp > 1 && eng.DPRouter != batching.DPFirstGroup {
		clients = groupShare(clients, dp)
	}
	n := min(clients, eng.MaxNumSeqs)
	if pool, err := eng.Pool(); err == nil && pool.BlockSize > 0 && pool.Blocks > 0 {
		per := (pt.Input + pt.Output + pool.BlockSize - 1) / pool.BlockSize
		n = min(n, pool.Blocks/per)
	}
	return n
}

// admissionLimited reports whether a closed loop ran fewer requests at
// once than AuditAdmissionLimit × what its engine holds.
func (r AuditRow) admissionLimited() bool {
	return r.Holds > 0 && r.Running < AuditAdmissionLimit*float64(r.Holds)
}

// QueueFactor returns the least mean number of equal prefills that a
// measured request of pt waits for before its first token, counting its
// own: (m(m+1)/2 + n − m)/n for n measured requests of which the first m
// arrive together on an idle engine, m the clients of a closed loop with
// NumPrompts (spread over dp data-parallel groups unless router sends
// them all to the first), or an open loop's cap when its rate is +Inf (n
// without a cap); 1 for other loads.
func QueueFactor(pt Point, dp int, router batching.DPRouter) float64 {
	n := pt.NumPrompts
	m := 0
	switch {
	case n < 1:
		return 1
	case pt.Concurrency > 0:
		m = pt.Concurrency
	case math.IsInf(pt.Rate, 1):
		m = n
		if pt.MaxConcurrency > 0 {
			m = pt.MaxConcurrency
		}
	default:
		return 1
	}
	if dp > 1 && router != batching.DPFirstGroup {
		m = (m + dp - 1) / dp
		n = (n + dp - 1) / dp
	}
	m = min(m, n)
	return (float64(m)*float64(m+1)/2 + float64(n-m)) / float64(n)
}

// requestRate returns the point's completed requests per second, per
// engine: clients over mean E2E (Little's law) for a closed loop, output
// throughput over output length, else the offered rate, for an open loop;
// 0 when none is known.
func requestRate(pt Point) float64 {
	m := pt.Measured
	switch {
	case pt.Concurrency > 0:
		e2e := m.E2E
		if e2e <= 0 && m.TTFT > 0 && m.TPOT > 0 {
			e2e = m.TTFT + float64(pt.Output-1)*m.TPOT
		}
		if e2e > 0 {
			return float64(pt.Concurrency) / e2e
		}
	case m.OutputThroughput > 0:
		return m.OutputThroughput / float64(pt.Output)
	case pt.Rate > 0 && !math.IsInf(pt.Rate, 1):
		return pt.Rate
	}
	return 0
}

// auditCause names the likely reason for a flagged row.
func auditCause(r AuditRow) string {
	var causes []string
	switch {
	case r.ComputeTTFT > AuditLimit:
		causes = append(causes, fmt.Sprintf("prefix-cache hits: the prefills ahead of a first token at %.0f%% of peak within the mean TTFT; the client's prompt generator repeats text (genai-perf's and aiperf's synthetic prompts share it), so fewer prompt tokens ran than the row records", 100*r.ComputeTTFT))
	case r.ComputeThroughput > AuditLimit:
		causes = append(causes, fmt.Sprintf("lengths not as recorded: the request rate needs %.0f%% of peak FLOP/s at the recorded lengths; prompts were shorter or served by the prefix cache", 100*r.ComputeThroughput))
	}
	if r.admissionLimited() {
		causes = append(causes, fmt.Sprintf("admission: about %.0f requests ran at once where the recorded limits and the KV pool hold %d; a cap the row does not record (a lower max_num_seqs, a smaller KV cache) kept the other clients waiting, and its TTFT holds that wait", r.Running, r.Holds))
	}
	if r.Bandwidth > AuditLimit {
		causes = append(causes, fmt.Sprintf("client: TPOT below the weight- and KV-streaming floor (%.0f%% of peak bandwidth); fewer tokens per request than recorded, speculative decoding, or a TPOT that the client averages differently", 100*r.Bandwidth))
	}
	return strings.Join(causes, "; ")
}

// AuditSummary writes, per source, the rows audited, the rows flagged
// (by compute, bandwidth and admission) and the largest implied compute
// and bandwidth fractions, as a Markdown table (sources sorted).
func AuditSummary(rows []AuditRow) string {
	type agg struct {
		n, flagged, compute, bandwidth, admission int
		maxC, maxB                                float64
	}
	by := map[string]*agg{}
	for _, r := range rows {
		a := by[r.Point.Source]
		if a == nil {
			a = &agg{}
			by[r.Point.Source] = a
		}
		a.n++
		if r.Flagged {
			a.flagged++
		}
		if r.Compute > AuditLimit {
			a.compute++
		}
		if r.Bandwidth > AuditLimit {
			a.bandwidth++
		}
		if r.admissionLimited() {
			a.admission++
		}
		a.maxC, a.maxB = max(a.maxC, r.Compute), max(a.maxB, r.Bandwidth)
	}
	sources := make([]string, 0, len(by))
	for k := range by {
		sources = append(sources, k)
	}
	sort.Strings(sources)
	var b strings.Builder
	fmt.Fprintf(&b, "| source | rows | flagged | compute (> %.0f%% of peak) | bandwidth (> %.0f%%) | admission (< 1/3 held) | largest compute | largest bandwidth |\n|---|---:|---:|---:|---:|---:|---:|---:|\n", 100*AuditLimit, 100*AuditLimit)
	for _, k := range sources {
		a := by[k]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %.0f%% | %.0f%% |\n", k, a.n, a.flagged, a.compute, a.bandwidth, a.admission, 100*a.maxC, 100*a.maxB)
	}
	return b.String()
}

// perSeqBatches are the lower ends of the decode batches AuditRoom groups
// rows by.
var perSeqBatches = []int{1, 32, 128, 512}

// AuditRoom writes, per vLLM version band (VersionBand) and decode batch
// (AuditRow.DecodeBatch: 1-31, 32-127, 128-511, 512 and more), the rows
// with a measured TPOT that the audit does not flag (SGLang's apart), the
// median and least PerSeqRoom in µs, and how many rows leave less room
// than perSeq(row), the yardstick (nil: CatalogPerSeq, the catalog
// profile's step_overhead.per_seq_s for the row's GPU), as a Markdown
// table (bands sorted, then batches).
func AuditRoom(rows []AuditRow, perSeq func(Point) float64) string {
	if perSeq == nil {
		perSeq = CatalogPerSeq
	}
	type key struct {
		band  string
		batch int
	}
	rooms := map[key][]float64{}
	below := map[key]int{}
	for _, r := range rows {
		if r.DecodeBatch < 1 || r.Flagged {
			continue
		}
		b := 0
		for i, lo := range perSeqBatches {
			if r.DecodeBatch >= lo {
				b = i
			}
		}
		band := VersionBand(r.Point.BackendVersion)
		if IsSGLang(r.Point) {
			band = "SGLang"
		}
		k := key{band, b}
		rooms[k] = append(rooms[k], r.PerSeqRoom)
		if r.PerSeqRoom < perSeq(r.Point) {
			below[k]++
		}
	}
	keys := slices.SortedFunc(maps.Keys(rooms), func(a, b key) int {
		if c := strings.Compare(a.band, b.band); c != 0 {
			return c
		}
		return a.batch - b.batch
	})
	var b strings.Builder
	b.WriteString("| vLLM | decode batch | rows | room per sequence, median | least | rows below the profile's per_seq_s |\n|---|---|---:|---:|---:|---:|\n")
	for _, k := range keys {
		v := rooms[k]
		mid := median(v) // sorts v
		span := fmt.Sprintf("%d+", perSeqBatches[k.batch])
		if k.batch+1 < len(perSeqBatches) {
			span = fmt.Sprintf("%d-%d", perSeqBatches[k.batch], perSeqBatches[k.batch+1]-1)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %.1f µs | %.1f µs | %d |\n", k.band, span, len(v), 1e6*mid, 1e6*v[0], below[k])
	}
	return b.String()
}

// CatalogPerSeq returns the per-sequence step time of the catalog profile
// (cost.DefaultProfile) of pt's GPU (its engine's, for a point that
// carries one), in seconds: AuditRoom's usual yardstick. It is 0 for a GPU
// outside the catalog.
func CatalogPerSeq(pt Point) float64 {
	if pt.Engine != nil {
		return cost.DefaultProfile(pt.Engine.Deployment.GPU).StepOverhead.PerSeq
	}
	g, err := cost.GPU(pt.GPU)
	if err != nil {
		return 0
	}
	return cost.DefaultProfile(g).StepOverhead.PerSeq
}

// AuditTable writes one line per row (flaggedOnly: only the flagged ones)
// with its implied fractions and cause, as a Markdown table.
func AuditTable(rows []AuditRow, flaggedOnly bool) string {
	var b strings.Builder
	b.WriteString("| source | point | setup | compute (TTFT) | compute (rate) | bandwidth | running / held | flag |\n|---|---|---|---:|---:|---:|---:|---|\n")
	for _, r := range rows {
		if flaggedOnly && !r.Flagged {
			continue
		}
		flag := "ok"
		if r.Flagged {
			flag = r.Cause
		}
		held := ""
		if r.Holds > 0 {
			held = fmt.Sprintf("%.0f / %d", r.Running, r.Holds)
		}
		fmt.Fprintf(&b, "| %s | %s | %s %s %s %s | %.0f%% | %.0f%% | %.0f%% | %s | %s |\n", r.Point.Source, r.Point.ID, r.Point.GPU, r.Point.Model,
			r.Point.Precision, r.Point.Setup(), 100*r.ComputeTTFT, 100*r.ComputeThroughput, 100*r.Bandwidth, held, flag)
	}
	return b.String()
}
