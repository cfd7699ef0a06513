package cost

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// The catalog profiles marked "transfer rule, no serving fit" are the
// H100 SXM serving profile moved to another GPU by that GPU's per-operator
// timings (docs/cost-model.md#profiles-by-the-transfer-rule). This file
// holds the per-operator values, the rule, a test that each such profile
// file is the rule applied to them, and the derivation of the values from
// aiconfigurator's data (run when SERVESIM_AIC_DATA names the converted
// data; see the doc section).

// perOperator is what one GPU's per-operator vLLM timings say, derived by
// derivePerOperator.
type perOperator struct {
	// system and vllm name the data: aiconfigurator's systems/data/<system>
	// directory and the vLLM version directory under gemm/vllm and
	// attention/vllm.
	system, vllm string
	// l2 is the L2 cache in bytes for rows whose benchmark working set
	// would stay in it (0: no row left out); see derivePerOperator.
	l2 float64
	// bandwidth and kernel: BF16 GEMMs of 8 tokens fitted as
	// weight bytes/(peak bandwidth × bandwidth) + kernel seconds.
	bandwidth, kernel float64
	// gemmMax: the achieved fraction of peak BF16 FLOP/s of large GEMMs,
	// fitted with half_tokens fixed at 120.
	gemmMax float64
	// prefill: the median achieved fraction of peak FLOP/s of the prefill
	// attention kernels.
	prefill float64
	// decode and attnKernel: decode attention fitted as KV bytes/(peak
	// bandwidth × decode) + attnKernel seconds per call, so decode is the
	// fraction at which large KV reads stream.
	decode, attnKernel float64
}

// transferHalfTokens is the GEMM curve's half-efficiency step size of
// every profile, the H100 SXM value (see derivePerOperator).
const transferHalfTokens = 120

// transferLayerGEMMs is the number of GEMMs per layer whose per-kernel
// time the H100 profile's step_overhead.per_layer_s includes.
const transferLayerGEMMs = 4

// transferRule returns the profile of gpu from its per-operator values op,
// the H100 SXM per-operator values ref derived from data of the same vLLM
// version with the same rows left out, and the H100 serving profile h100:
// each fraction is the serving value times the GPU's per-operator value
// over the H100's (capped at 1); the GEMM half-token size is H100's; the
// per-layer step overhead moves by the difference of the per-call kernel
// times of the GEMMs and the decode attention a layer the H100 fit put in
// it; the per-sequence and frontend
// overheads, CPU work, are carried over in seconds; sampling is the
// H100 rule at the GPU's bandwidth and per-operator streaming fraction.
func transferRule(gpu GPUSpec, op, ref perOperator, h100 Profile) Profile {
	scale := func(serving, g, r float64) float64 { return min(1, serving*g/r) }
	return Profile{
		GPU:       gpu.Name,
		Bandwidth: scale(h100.Bandwidth, op.bandwidth, ref.bandwidth),
		GEMM: gemmEfficiency{
			Max:        scale(h100.GEMM.Max, op.gemmMax, ref.gemmMax),
			HalfTokens: transferHalfTokens,
		},
		Attention: attentionEfficiency{
			Prefill: scale(h100.Attention.Prefill, op.prefill, ref.prefill),
			Decode:  scale(h100.Attention.Decode, op.decode, ref.decode),
		},
		StepOverhead: StepOverhead{
			Base:     h100.StepOverhead.Base,
			PerLayer: h100.StepOverhead.PerLayer + transferLayerGEMMs*(op.kernel-ref.kernel) + op.attnKernel - ref.attnKernel,
			PerSeq:   h100.StepOverhead.PerSeq,
		},
		FrontendOverhead: h100.FrontendOverhead,
		SamplingPerVocab: 16 / (gpu.BandwidthBytesPerS * op.bandwidth),
	}
}

// h100PerOp are the H100 SXM per-operator values by data version and rows
// left out: the reference of every transfer.
var h100PerOp = map[string]perOperator{
	// The per-operator values of profiles/h100-sxm.yaml (0.86, 0.84, 0.44, 0.78).
	"0.14.0": {system: "h100_sxm", vllm: "0.14.0", bandwidth: 0.862, kernel: 3.30e-6, gemmMax: 0.842, prefill: 0.439, decode: 0.776, attnKernel: 11.07e-6},
	"0.19.0": {system: "h100_sxm", vllm: "0.19.0", bandwidth: 0.829, kernel: 3.25e-6, gemmMax: 0.841, prefill: 0.593, decode: 0.794, attnKernel: 5.64e-6},
	// With L40S's L2 rule (96 MiB).
	"0.14.0/l2=96MiB": {system: "h100_sxm", vllm: "0.14.0", l2: 96 << 20, bandwidth: 0.915, kernel: 4.30e-6, gemmMax: 0.859, prefill: 0.439, decode: 0.871, attnKernel: 19.57e-6},
	// With the RTX PRO 6000's L2 rule (128 MiB).
	"0.19.0/l2=128MiB": {system: "h100_sxm", vllm: "0.19.0", l2: 128 << 20, bandwidth: 0.862, kernel: 3.84e-6, gemmMax: 0.865, prefill: 0.593, decode: 0.956, attnKernel: 20.88e-6},
}

// transferPerOp are the per-operator values of the GPUs whose catalog
// profile is the transfer rule, with the key of their H100 reference.
var transferPerOp = []struct {
	gpu, ref string
	op       perOperator
}{
	{"a100-80gb", "0.14.0", perOperator{system: "a100_sxm", vllm: "0.14.0", bandwidth: 0.746, kernel: 5.81e-6, gemmMax: 0.854, prefill: 0.497, decode: 0.759, attnKernel: 25.04e-6}},
	{"h200", "0.14.0", perOperator{system: "h200_sxm", vllm: "0.14.0", bandwidth: 0.808, kernel: 3.48e-6, gemmMax: 0.893, prefill: 0.456, decode: 0.736, attnKernel: 14.07e-6}},
	{"gb200", "0.14.0", perOperator{system: "gb200", vllm: "0.14.0", bandwidth: 0.779, kernel: 4.00e-6, gemmMax: 0.730, prefill: 0.320, decode: 0.836, attnKernel: 7.34e-6}},
	{"b200", "0.19.0", perOperator{system: "b200_sxm", vllm: "0.19.0", bandwidth: 0.778, kernel: 3.05e-6, gemmMax: 0.725, prefill: 0.480, decode: 0.820, attnKernel: 4.54e-6}},
	{"b300", "0.19.0", perOperator{system: "b300_sxm", vllm: "0.19.0", bandwidth: 0.768, kernel: 2.82e-6, gemmMax: 0.793, prefill: 0.561, decode: 0.810, attnKernel: 4.20e-6}},
	{"l40s", "0.14.0/l2=96MiB", perOperator{system: "l40s", vllm: "0.14.0", l2: 96 << 20, bandwidth: 0.786, kernel: 2.05e-6, gemmMax: 0.748, prefill: 0.429, decode: 0.837, attnKernel: 15.50e-6}},
	{"rtxpro6000", "0.19.0/l2=128MiB", perOperator{system: "rtx_pro_6000_server", vllm: "0.19.0", l2: 128 << 20, bandwidth: 0.784, kernel: 4.54e-6, gemmMax: 0.683, prefill: 0.509, decode: 0.838, attnKernel: 21.76e-6}},
}

func TestPerOperatorH100MatchesProfile(t *testing.T) {
	t.Parallel()
	// The H100 profile's per-operator start values are h100PerOp["0.14.0"], rounded.
	ref := h100PerOp["0.14.0"]
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"bandwidth", ref.bandwidth, 0.86}, {"gemm.max", ref.gemmMax, 0.84},
		{"attention.prefill", ref.prefill, 0.44}, {"attention.decode", ref.decode, 0.78},
	} {
		if math.Abs(c.got-c.want) > 0.005 {
			t.Errorf("H100 per-operator %s %.3f, profile comment says %.2f", c.name, c.got, c.want)
		}
	}
}

// TestTransferProfiles checks that each transfer-rule profile file is the
// rule applied to the per-operator values above, rounded as written.
func TestTransferProfiles(t *testing.T) {
	t.Parallel()
	h100, err := embeddedProfile(referenceProfileGPU)
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range transferPerOp {
		t.Run(tp.gpu, func(t *testing.T) {
			ref, ok := h100PerOp[tp.ref]
			if !ok {
				t.Fatalf("no H100 reference %q", tp.ref)
			}
			if ref.vllm != tp.op.vllm || ref.l2 != tp.op.l2 {
				t.Fatalf("reference %q is not on the same data version and rows as %+v", tp.ref, tp.op)
			}
			got, err := embeddedProfile(tp.gpu)
			if err != nil {
				t.Fatal(err)
			}
			want := transferRule(gpus[tp.gpu], tp.op, ref, h100)
			for _, c := range []struct {
				name      string
				got, want float64
				tol       float64
			}{
				{"bandwidth", got.Bandwidth, want.Bandwidth, 0.005},
				{"gemm.max", got.GEMM.Max, want.GEMM.Max, 0.005},
				{"gemm.half_tokens", got.GEMM.HalfTokens, want.GEMM.HalfTokens, 0},
				{"attention.prefill", got.Attention.Prefill, want.Attention.Prefill, 0.005},
				{"attention.decode", got.Attention.Decode, want.Attention.Decode, 0.005},
				{"step_overhead.base_s", got.StepOverhead.Base, want.StepOverhead.Base, 0},
				{"step_overhead.per_layer_s", got.StepOverhead.PerLayer, want.StepOverhead.PerLayer, 0.05e-6},
				{"step_overhead.per_seq_s", got.StepOverhead.PerSeq, want.StepOverhead.PerSeq, 0},
				{"frontend_overhead_s", got.FrontendOverhead, want.FrontendOverhead, 0},
				{"sampling_s_per_vocab", got.SamplingPerVocab, want.SamplingPerVocab, 0.005 * want.SamplingPerVocab},
			} {
				if math.Abs(c.got-c.want) > c.tol+1e-15 {
					t.Errorf("%s: file %v, rule %v", c.name, c.got, c.want)
				}
			}
			if got.Provenance.FittedOn != "" {
				t.Errorf("provenance fitted_on %q: a transfer-rule profile is fitted on nothing", got.Provenance.FittedOn)
			}
		})
	}
}

// TestPerOperatorValuesMatchData derives every per-operator value above
// from aiconfigurator's data converted to CSV (docs/cost-model.md#profiles-by-the-transfer-rule):
// SERVESIM_AIC_DATA names a directory laid out as systems/data, each
// .parquet file there as a .csv beside it.
func TestPerOperatorValuesMatchData(t *testing.T) {
	dir := os.Getenv("SERVESIM_AIC_DATA")
	if dir == "" {
		t.Skip("set SERVESIM_AIC_DATA to aiconfigurator's systems/data converted to CSV (docs/cost-model.md#profiles-by-the-transfer-rule)")
	}
	type item struct {
		gpu string
		op  perOperator
	}
	var items []item
	for _, k := range []string{"0.14.0", "0.19.0", "0.14.0/l2=96MiB", "0.19.0/l2=128MiB"} {
		items = append(items, item{referenceProfileGPU, h100PerOp[k]})
	}
	for _, tp := range transferPerOp {
		items = append(items, item{tp.gpu, tp.op})
	}
	for _, it := range items {
		t.Run(it.gpu+"/"+it.op.vllm, func(t *testing.T) {
			got, half, err := derivePerOperator(dir, gpus[it.gpu], it.op.system, it.op.vllm, it.op.l2)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s l2=%v: bandwidth %.3f, kernel %.2f us, gemm.max %.3f at half_tokens 120 (free fit: %.3f at %.0f), prefill %.3f, decode %.3f, attention kernel %.2f us",
				it.gpu, it.op.vllm, it.op.l2, got.bandwidth, 1e6*got.kernel, got.gemmMax, half[1], half[0], got.prefill, got.decode, 1e6*got.attnKernel)
			for _, c := range []struct {
				name      string
				got, want float64
				tol       float64
			}{
				{"bandwidth", got.bandwidth, it.op.bandwidth, 0.0005},
				{"kernel", got.kernel, it.op.kernel, 0.005e-6},
				{"gemm max", got.gemmMax, it.op.gemmMax, 0.0005},
				{"prefill", got.prefill, it.op.prefill, 0.0005},
				{"decode", got.decode, it.op.decode, 0.0005},
				{"attention kernel", got.attnKernel, it.op.attnKernel, 0.05e-6},
			} {
				if !(math.Abs(c.got-c.want) <= c.tol+1e-12) {
					t.Errorf("%s: data %.4g, table %.4g", c.name, c.got, c.want)
				}
			}
		})
	}
}

// derivePerOperator derives the per-operator values of gpu from the CSV
// conversions of aiconfigurator's vLLM data under dir/<system>, by the
// procedure the H100 profile's comments describe:
//
//   - bandwidth, kernel: BF16 GEMMs of m = 8 tokens with n, k in
//     [512, 16384], fitted as t = 2nk/(BW·bandwidth) + kernel by least
//     squares on the relative error.
//   - gemmMax: BF16 GEMMs with n, k in [1024, 16384] and m in 64..8192
//     (the m of the 0.14.0 grid), fitted as
//     t = max(2nk/(BW·bandwidth), 2mnk/(peak·max·m/(m+120))) + kernel by
//     least squares on log t. The fit of max and half_tokens together has
//     a flat valley (H100: RMS log error 0.198 from max 0.80 at 64 tokens
//     to 0.84 at 120), so half_tokens is held at H100's 120 and max fitted
//     along it; the free fit's (half_tokens, max) is returned as half.
//   - prefill: FlashAttention prefill with BF16 KV, head_dim 128, ISL in
//     [1024, 16384], batch × ISL ≥ 4096: median of 4·head_dim·heads·batch·
//     ISL(ISL+1)/2 FLOPs over time × peak.
//   - decode: decode attention with BF16 KV, head_dim 128, 8 query heads
//     per KV head, KV bytes (batch·(ISL+step)·kv_heads·head_dim·2·2) ≥
//     32 MB and at least 256 tokens a sequence (ISL+step), fitted as
//     t = bytes/(BW·decode) + attnKernel by least squares on the relative
//     error: decode is the fraction at which large KV reads stream,
//     attnKernel the fixed time of a call. (Before profile version 7
//     decode was the median of bytes over time × BW over all rows of 32 MB
//     or more, shorter contexts included, which mixes the fixed time into
//     the fraction: H100 0.52 at vLLM 0.14.0 against 0.78 streaming.)
//
// With l2 > 0 the rows whose benchmark keeps its data in an L2 cache of l2
// bytes are left out: GEMMs whose six weight copies fit (aiconfigurator's
// collector replays six GEMM layers in one CUDA graph) and decode
// attention whose KV fits. Peak is the GPU's dense BF16 peak, BW its
// memory bandwidth.
func derivePerOperator(dir string, gpu GPUSpec, system, vllm string, l2 float64) (perOperator, [2]float64, error) {
	op := perOperator{system: system, vllm: vllm, l2: l2}
	bw, peak := gpu.BandwidthBytesPerS, gpu.PeakFLOPS.BF16
	base := filepath.Join(dir, system)
	gemm, err := readCSV(filepath.Join(base, "gemm", "vllm", vllm, "gemm_perf.csv"))
	if err != nil {
		return op, [2]float64{}, err
	}
	var rows []gemmTime
	for _, r := range gemm {
		if r.s("gemm_dtype") != "bfloat16" {
			continue
		}
		rows = append(rows, gemmTime{r.f("m"), r.f("n"), r.f("k"), r.f("latency") * 1e-3})
	}
	inL2 := func(bytes float64) bool { return l2 > 0 && bytes <= l2 }
	op.bandwidth, op.kernel = fitStreaming(rows, bw, func(r gemmTime) bool {
		return r.m == 8 && r.n >= 512 && r.k >= 512 && r.n <= 16384 && r.k <= 16384 && !inL2(6*2*r.n*r.k)
	})
	grid := []float64{64, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024, 2048, 4096, 8192}
	var big []gemmTime
	for _, r := range rows {
		if slices.Contains(grid, r.m) && r.n >= 1024 && r.k >= 1024 && r.n <= 16384 && r.k <= 16384 && !inL2(6*2*r.n*r.k) {
			big = append(big, r)
		}
	}
	rms := func(mx, half float64) float64 { return gemmRMS(big, bw, peak, op.bandwidth, op.kernel, mx, half) }
	op.gemmMax = goldenMin(func(mx float64) float64 { return rms(mx, transferHalfTokens) }, 0.2, 1)
	free, best := [2]float64{}, math.Inf(1)
	for half := 0.0; half <= 600; half += 4 {
		mx := goldenMin(func(mx float64) float64 { return rms(mx, half) }, 0.2, 1)
		if e := rms(mx, half); e < best {
			best, free = e, [2]float64{half, mx}
		}
	}
	ctx, err := readCSV(filepath.Join(base, "attention", "vllm", vllm, "context_attention_perf.csv"))
	if err != nil {
		return op, free, err
	}
	var fr []float64
	for _, r := range ctx {
		b, isl, d := r.f("batch_size"), r.f("isl"), r.f("head_dim")
		if r.s("kv_cache_dtype") != "bfloat16" || d != 128 || !r.noWindow() || isl < 1024 || isl > 16384 || b*isl < 4096 {
			continue
		}
		fr = append(fr, 4*d*r.f("num_heads")*b*isl*(isl+1)/2/(r.f("latency")*1e-3)/peak)
	}
	op.prefill = median(fr)
	gen, err := readCSV(filepath.Join(base, "attention", "vllm", vllm, "generation_attention_perf.csv"))
	if err != nil {
		return op, free, err
	}
	// Decode attention: t = bytes/(BW·decode) + attnKernel, fitted as the
	// GEMMs of 8 tokens above.
	var line relativeLine
	for _, r := range gen {
		kv, d := r.f("num_key_value_heads"), r.f("head_dim")
		if r.s("kv_cache_dtype") != "bfloat16" || d != 128 || !r.noWindow() || r.f("num_heads") != 8*kv {
			continue
		}
		bytes := r.f("batch_size") * (r.f("isl") + r.f("step")) * kv * d * 2 * 2
		if bytes < 32e6 || inL2(bytes) || r.f("isl")+r.f("step") < 256 {
			continue
		}
		line.add(bytes/bw, r.f("latency")*1e-3)
	}
	slope, intercept := line.fit()
	op.decode, op.attnKernel = 1/slope, intercept
	return op, free, nil
}

// gemmTime is one timed GEMM: m tokens times a k x n weight, t seconds.
type gemmTime struct{ m, n, k, t float64 }

// relativeLine accumulates points (x, t) for the line t = slope·x +
// intercept fitted by weighted least squares with weights 1/t²: least
// squares on the relative error.
type relativeLine struct{ sw, sx, sy, sxx, sxy float64 }

func (l *relativeLine) add(x, t float64) {
	w := 1 / (t * t)
	l.sw, l.sx, l.sy, l.sxx, l.sxy = l.sw+w, l.sx+w*x, l.sy+w*t, l.sxx+w*x*x, l.sxy+w*x*t
}

func (l relativeLine) fit() (slope, intercept float64) {
	slope = (l.sw*l.sxy - l.sx*l.sy) / (l.sw*l.sxx - l.sx*l.sx)
	return slope, (l.sy - slope*l.sx) / l.sw
}

// fitStreaming fits the GEMMs of rows that keep accepts as
// t = 2nk/(bw·bandwidth) + kernel (relativeLine on x = 2nk/bw).
func fitStreaming(rows []gemmTime, bw float64, keep func(gemmTime) bool) (bandwidth, kernel float64) {
	var line relativeLine
	for _, r := range rows {
		if keep(r) {
			line.add(2*r.n*r.k/bw, r.t)
		}
	}
	slope, kernel := line.fit()
	return 1 / slope, kernel
}

// gemmRMS returns the RMS log error over rows of
// t = max(2nk/(bw·bandwidth), 2mnk/(peak·mx·m/(m+half))) + kernel.
func gemmRMS(rows []gemmTime, bw, peak, bandwidth, kernel, mx, half float64) float64 {
	var s float64
	for _, r := range rows {
		p := max(2*r.n*r.k/(bw*bandwidth), 2*r.n*r.k*(r.m+half)/(peak*mx)) + kernel
		d := math.Log(p / r.t)
		s += d * d
	}
	return math.Sqrt(s / float64(len(rows)))
}

// goldenMin returns the minimum of a unimodal f on [a, b].
func goldenMin(f func(float64) float64, a, b float64) float64 {
	r := (math.Sqrt(5) - 1) / 2
	c, d := b-r*(b-a), a+r*(b-a)
	fc, fd := f(c), f(d)
	for b-a > 1e-6 {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - r*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + r*(b-a)
			fd = f(d)
		}
	}
	return (a + b) / 2
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// csvRow is one row of a CSV file, read by column name.
type csvRow struct {
	col map[string]int
	rec []string
}

func (r csvRow) s(name string) string {
	i, ok := r.col[name]
	if !ok {
		return ""
	}
	return r.rec[i]
}

func (r csvRow) f(name string) float64 {
	v, err := strconv.ParseFloat(r.s(name), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// noWindow says whether the row is full attention: no window_size column
// (older tables) or a window of 0.
func (r csvRow) noWindow() bool {
	w := r.s("window_size")
	return w == "" || w == "0"
}

func readCSV(path string) ([]csvRow, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	rows := make([]csvRow, 0, len(recs)-1)
	for _, rec := range recs[1:] {
		rows = append(rows, csvRow{col, rec})
	}
	return rows, nil
}
