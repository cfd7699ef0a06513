package calibrate

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// publicRuns returns every row of public_serving_runs.csv.
func publicRuns(t testing.TB) []Point {
	t.Helper()
	f, err := os.Open(shareddata.Path(t, "public_serving_runs.csv"))
	require.NoError(t, err)
	defer f.Close()
	pts, err := ReadPublicServingCSV(f, "public_serving_runs.csv")
	require.NoError(t, err)
	return pts
}

func TestQueueFactor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		pt     Point
		dp     int
		router batching.DPRouter
		want   float64
	}{
		{"steady closed loop", Point{Concurrency: 8}, 1, "", 1},
		{"one client", Point{Concurrency: 1, NumPrompts: 10}, 1, "", 1},
		// 4 together: 1+2+3+4 = 10, then 36 alone: (10+36)/40.
		{"closed loop from idle", Point{Concurrency: 4, NumPrompts: 40}, 1, "", 46.0 / 40},
		// all 10 at once: (1+...+10)/10.
		{"burst", Point{Rate: math.Inf(1), NumPrompts: 10}, 1, "", 5.5},
		{"burst capped", Point{Rate: math.Inf(1), NumPrompts: 10, MaxConcurrency: 2}, 1, "", (3.0 + 8) / 10},
		{"finite rate", Point{Rate: 5, NumPrompts: 10}, 1, "", 1},
		// 8 clients over 2 groups: 4 per group, 20 requests per group.
		{"data parallel", Point{Concurrency: 8, NumPrompts: 40}, 2, "", 26.0 / 20},
		{"first group", Point{Concurrency: 8, NumPrompts: 40}, 2, batching.DPFirstGroup, (36.0 + 32) / 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, QueueFactor(tc.pt, tc.dp, tc.router), 1e-12)
		})
	}
}

// syntheticAudit simulates a closed loop of Llama-3.1-8B on one H100 at
// 4096-token prompts and 64 output tokens under the catalog profile, and
// returns its points as a benchmark would record them: 4096 input tokens
// each. With cached, every prompt's first 3840 tokens are one shared prefix
// that the prefix cache serves after the first request, as a client's
// prompt generator that repeats text makes it.
func syntheticAudit(t *testing.T, cached bool) []Point {
	t.Helper()
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	profile := cost.DefaultProfile(g)
	s := Simulator{}
	var out []Point
	for _, c := range []int{1, 4, 16, 64} {
		pt := Point{ID: fmt.Sprintf("c%d", c), Source: "synthetic", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm", TP: 1,
			Precision: "bf16", Concurrency: c, NumPrompts: 4 * c, Input: 4096, Output: 64}
		cfg, err := s.Config(pt, profile)
		require.NoError(t, err)
		if cached {
			cfg.Workload.Lengths = workload.SharedPrefix{Tokens: 3840, Lengths: workload.Fixed{Input: 256, Output: 64}}
		}
		res, err := sim.Run(cfg)
		require.NoError(t, err)
		pt.Measured = Metrics{TTFT: res.TTFT().Mean(), TPOT: res.TPOT().Mean(), E2E: res.E2E().Mean(), OutputThroughput: res.OutputThroughput}
		out = append(out, pt)
	}
	return out
}

// TestAuditFlagsCachedPrompts is the audit's self-check: runs whose prompts
// the prefix cache served, recorded at their full length, are flagged as
// prefix-cache hits; the same runs without shared text are not.
func TestAuditFlagsCachedPrompts(t *testing.T) {
	t.Parallel()
	s := Simulator{}
	for _, cached := range []bool{false, true} {
		rows, skipped := s.Audit(syntheticAudit(t, cached))
		require.Empty(t, skipped)
		for _, r := range rows {
			t.Logf("cached %v %s: compute %.2f (ttft %.2f), bandwidth %.2f", cached, r.Point.ID, r.Compute, r.ComputeTTFT, r.Bandwidth)
			if !cached {
				assert.False(t, r.Flagged, "%s uncached: compute %.2f, bandwidth %.2f", r.Point.ID, r.Compute, r.Bandwidth)
				// The catalog's GEMMs run at 0.72 of peak: no run can imply more.
				assert.Less(t, r.Compute, 0.72, r.Point.ID)
				continue
			}
			assert.True(t, r.Flagged, "%s cached: compute %.2f", r.Point.ID, r.Compute)
			assert.Contains(t, r.Cause, "prefix-cache hits", r.Point.ID)
		}
	}
}

// TestAuditBandwidthFloor: a TPOT shorter than the time one step takes to
// read the weights at the datasheet bandwidth is flagged on bandwidth.
func TestAuditBandwidthFloor(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	floor := m.MatmulWeightBytes() / g.BandwidthBytesPerS // one GPU, one sequence
	for _, tc := range []struct {
		tpot    float64
		flagged bool
	}{{floor / 0.5, false}, {floor / 0.85, false}, {floor / 0.95, true}, {floor / 1.5, true}} {
		pt := Point{ID: "x", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm", TP: 1, Precision: "bf16", Concurrency: 1,
			Input: 128, Output: 128, Measured: Metrics{TTFT: 1, TPOT: tc.tpot}}
		rows, skipped := Simulator{}.Audit([]Point{pt})
		require.Empty(t, skipped)
		// The KV cache of 192 tokens adds 0.1% to the weights.
		assert.InDelta(t, floor/tc.tpot, rows[0].Bandwidth, 0.005*floor/tc.tpot)
		assert.Equal(t, tc.flagged, rows[0].Flagged, "tpot %.2f ms", 1000*tc.tpot)
		if tc.flagged {
			assert.Contains(t, rows[0].Cause, "client")
		}
	}
}

// auditSimulated audits a closed loop of c clients sending 8c requests of
// 512 + 256 tokens to Llama-3.1-8B on one H100, measured as simulated
// under prof on the engine adjust changes (nil: as built), recorded with
// the engine's defaults.
func auditSimulated(t *testing.T, s Simulator, c int, prof cost.Profile, adjust func(*batching.Config)) AuditRow {
	t.Helper()
	pt := Point{ID: fmt.Sprintf("c%d", c), Source: "synthetic", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm", TP: 1,
		Precision: "bf16", Concurrency: c, NumPrompts: 8 * c, Input: 512, Output: 256}
	cfg, err := s.Config(pt, prof)
	require.NoError(t, err)
	if adjust != nil {
		eng := cfg.Server.(batching.Config)
		adjust(&eng)
		cfg.Server = eng
	}
	res, err := sim.Run(cfg)
	require.NoError(t, err)
	pt.Measured = Metrics{TTFT: res.TTFT().Mean(), TPOT: res.TPOT().Mean(), E2E: res.E2E().Mean()}
	rows, skipped := s.Audit([]Point{pt})
	require.Empty(t, skipped)
	return rows[0]
}

// TestAuditFlagsAdmissionCap is the admission check's self-check: closed
// loops measured on an engine that held at most 8 requests (max_num_seqs
// 8), recorded without that cap, are flagged as admission-limited once the
// clients reach 3 × 8 (Running ≤ 8 of the 32 or 64 the recorded engine
// holds; at 16 clients, 8 of 16 is above 1/3); the same runs measured
// without the cap are not. Running counts the requests past their first
// token: capped, at most the 8 running (2% for the run's ends, which
// Little's law averages over), uncapped at least 85% of the clients (a
// client's request is running but for its prefill, 512 tokens against 256
// decode steps, under 15% of its E2E here).
func TestAuditFlagsAdmissionCap(t *testing.T) {
	t.Parallel()
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	s := Simulator{}
	for _, capped := range []bool{false, true} {
		for _, c := range []int{4, 16, 32, 64} {
			r := auditSimulated(t, s, c, cost.DefaultProfile(g), func(eng *batching.Config) {
				if capped {
					eng.MaxNumSeqs = 8
				}
			})
			pt := r.Point
			assert.Equal(t, c, r.Holds, pt.ID)
			want := capped && c >= 3*8
			assert.Equal(t, want, r.Flagged, "capped %v %s: running %.1f of %d", capped, pt.ID, r.Running, r.Holds)
			if want {
				assert.Contains(t, r.Cause, "admission", pt.ID)
				assert.LessOrEqual(t, r.Running, 8*1.02, pt.ID)
			}
			if !capped {
				assert.GreaterOrEqual(t, r.Running, 0.85*float64(c), pt.ID)
			}
		}
	}
}

// TestAuditVisibleSources audits every row of both serving files. The
// counts are this commit's findings (docs/fidelity.md, "Physics audit"):
// no public vLLM run exceeds 90% of its GPU, and among aiconfigurator's 992
// rows two Qwen3-32B FP8 rows at 4000-token prompts need more prefill
// FLOP/s than H100 has within their TTFT and three gpt-oss-120b rows at 512
// clients decode faster than H100 can read their weights and KV cache; six
// more gpt-oss-120b rows at 512 clients (TP 2, 4 and 8) ran about 100
// requests at once where the recorded limits and the KV pool hold all 512
// (the admission check).
func TestAuditVisibleSources(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	rows, skipped := s.Audit(append(silicon(t), publicRuns(t)...))
	require.Empty(t, skipped)
	flagged := map[string]int{}
	for _, r := range rows {
		if r.Flagged {
			flagged[r.Point.Source]++
			continue
		}
		assert.LessOrEqual(t, r.Compute, AuditLimit)
	}
	assert.Equal(t, map[string]int{"aiconfigurator_vllm_silicon.csv": 11}, flagged)
	sum := AuditSummary(rows)
	assert.Contains(t, sum, "| public_serving_runs.csv | 34 | 0 |")
	assert.True(t, strings.Contains(AuditTable(rows, true), "Qwen/Qwen3-32B fp8 tp2 4000x1000 c48"))
}

func TestReadPublicServingCSV(t *testing.T) {
	t.Parallel()
	pts := publicRuns(t)
	require.Len(t, pts, 34)
	sglang := 0
	byID := map[string]Point{}
	for _, p := range pts {
		byID[p.ID] = p
		if IsSGLang(p) {
			sglang++
		}
	}
	assert.Equal(t, 5, sglang)
	p := byID["gpustack-vllm-h100-sxm-qwen3-14b-random4000x200"]
	assert.Equal(t, Point{ID: p.ID, Source: "public_serving_runs.csv", Model: "Qwen/Qwen3-14B", GPU: "h100-sxm", TP: 1,
		Precision: "bf16", BackendVersion: "0.11.0", Rate: math.Inf(1), Input: 3996, Output: 200, NumPrompts: 500,
		MaxNumSeqs: 1024, MaxNumBatchedTokens: 8192,
		Measured: p.Measured}, p)
	for _, m := range []struct{ got, want float64 }{{p.Measured.TTFT, 112.71692}, {p.Measured.TPOT, 0.13245},
		{p.Measured.ITL, 0.13211}, {p.Measured.OutputThroughput, 438.56}, {p.Measured.E2E, 0}} {
		assert.InDelta(t, m.want, m.got, 1e-9)
	}
	q := byID["vllmblog-fp8kv-h100-sxm-gpt-oss-20b-fp8kv"]
	assert.Equal(t, "fp4", q.Precision)
	assert.Equal(t, 8, q.MaxConcurrency)
	assert.InDelta(t, 0.4517, q.Measured.TTFT, 1e-9) // the median: no mean published
	assert.InDelta(t, 0.0079, q.Measured.TPOT, 1e-9)

	_, err := ReadPublicServingCSV(strings.NewReader("point,gpu,tp,model_hf_id,vllm_version,input_len,output_len,num_prompts,request_rate\nx,h100-sxm,0,m,0.11,1,1,1,inf\n"), "bad.csv")
	assert.ErrorIs(t, err, ErrInvalid)
	assert.ErrorContains(t, err, "tp \"0\"")
	_, err = ReadPublicServingCSV(strings.NewReader("point,gpu\n"), "bad.csv")
	assert.ErrorContains(t, err, "column \"tp\" missing")
}

func TestReadRunsCSV(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file string
		rows int
	}{{"public_serving_runs.csv", 34}, {"aiconfigurator_vllm_silicon.csv", 992}} {
		f, err := os.Open(shareddata.Path(t, tc.file))
		require.NoError(t, err)
		pts, err := ReadRunsCSV(f, tc.file)
		f.Close()
		require.NoError(t, err)
		assert.Len(t, pts, tc.rows, tc.file)
	}
	_, err := ReadRunsCSV(strings.NewReader("a,b\n1,2\n"), "x.csv")
	assert.ErrorIs(t, err, ErrInvalid)
}

// TestAuditPerSeqRoom: one sequence's room is its TPOT less the time to
// read the weights at the datasheet bandwidth (within the 0.1% its KV
// cache adds), and on runs simulated under a profile with a known
// per-sequence time the room never falls below that time, and closes on
// it as the batch grows: the room is the per-sequence time plus the
// step's fixed parts and the kernels' shortfall from peak, spread over
// the batch.
func TestAuditPerSeqRoom(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	floor := m.MatmulWeightBytes() / g.BandwidthBytesPerS
	pt := Point{ID: "one", Model: "meta-llama/Llama-3.1-8B", GPU: "h100-sxm", TP: 1, Precision: "bf16", Concurrency: 1,
		Input: 128, Output: 128, Measured: Metrics{TTFT: 1, TPOT: 2 * floor}}
	rows, skipped := Simulator{}.Audit([]Point{pt})
	require.Empty(t, skipped)
	assert.Equal(t, 1, rows[0].DecodeBatch)
	assert.InDelta(t, floor, rows[0].PerSeqRoom, 0.002*floor)

	const perSeq = 40e-6
	prof := cost.DefaultProfile(g)
	prof.StepOverhead.PerSeq = perSeq
	s := Simulator{}
	excess := math.Inf(1)
	for _, c := range []int{16, 64, 256} {
		r := auditSimulated(t, s, c, prof, nil)
		pt := r.Point
		t.Logf("%s: batch %d, room %.1f µs", pt.ID, r.DecodeBatch, 1e6*r.PerSeqRoom)
		assert.GreaterOrEqual(t, r.PerSeqRoom, perSeq, pt.ID)
		assert.Less(t, r.PerSeqRoom-perSeq, excess, "%s: the room should close on the per-sequence time", pt.ID)
		excess = r.PerSeqRoom - perSeq
	}
}

// TestAuditRoom checks AuditRoom's grouping by hand: batches 1-31, 32-127,
// 128-511 and 512+, per version band, SGLang apart, flagged rows and rows
// without a TPOT left out, the median and least room, and the rows below
// the yardstick.
func TestAuditRoom(t *testing.T) {
	t.Parallel()
	row := func(version string, batch int, room float64, flagged bool) AuditRow {
		return AuditRow{Point: Point{BackendVersion: version, GPU: "h100-sxm"}, DecodeBatch: batch, PerSeqRoom: room, Flagged: flagged}
	}
	rows := []AuditRow{
		row("0.19.0", 600, 20e-6, false), row("0.18.1", 512, 40e-6, false), row("0.19.0", 2048, 4e-6, false),
		row("0.19.0", 511, 90e-6, false), row("0.19.0", 900, -5e-6, true), row("0.12.0", 31, 300e-6, false),
		row("0.12.0", 0, 1, false), row("sglang-0.5.5", 700, 10e-6, false),
	}
	got := AuditRoom(rows, func(Point) float64 { return 30e-6 })
	// nil is the catalog H100 profile's 56.4 µs: all three 0.18+ 512+ rows are below it.
	assert.Contains(t, AuditRoom(rows, nil), "| 0.18+ | 512+ | 3 | 20.0 µs | 4.0 µs | 3 |\n")
	want := "| vLLM | decode batch | rows | room per sequence, median | least | rows below the profile's per_seq_s |\n|---|---|---:|---:|---:|---:|\n" +
		"| 0.11-0.12 | 1-31 | 1 | 300.0 µs | 300.0 µs | 0 |\n" +
		"| 0.18+ | 128-511 | 1 | 90.0 µs | 90.0 µs | 0 |\n" +
		"| 0.18+ | 512+ | 3 | 20.0 µs | 4.0 µs | 2 |\n" +
		"| SGLang | 512+ | 1 | 10.0 µs | 10.0 µs | 1 |\n"
	assert.Equal(t, want, got)
}

// TestAuditRoomDoc recomputes docs/cost-model.md's table of the room that
// the visible runs leave per sequence against the catalog profiles'
// per_seq_s.
func TestAuditRoomDoc(t *testing.T) {
	t.Parallel()
	s := Simulator{ModelDir: modelDir(t)}
	rows, skipped := s.Audit(append(silicon(t), publicRuns(t)...))
	require.Empty(t, skipped)
	doc, err := os.ReadFile("../docs/cost-model.md")
	require.NoError(t, err)
	if want := AuditRoom(rows, CatalogPerSeq); !strings.Contains(string(doc), want) {
		t.Errorf("docs/cost-model.md's room-per-sequence table is stale; want:\n%s", want)
	}
}
