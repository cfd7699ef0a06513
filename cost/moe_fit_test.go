package cost

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// The catalog profiles' fused-MoE entries (moeEfficiency) are fitted to
// aiconfigurator's per-operator timings of vLLM's FusedMoE layer
// (docs/cost-model.md#fused-moe-kernels). This file holds the fit and a
// test that rederives every catalog entry from the data converted to CSV
// (run when SERVESIM_AIC_DATA names it, as TestPerOperatorValuesMatchData).

// moeFitSpec names the rows one MoE entry is fitted to and the catalog
// entry they give.
type moeFitSpec struct {
	// gpu is the catalog GPU (bandwidth, peaks) and profile.
	gpu string
	// system and vllm name the table: systems/data/<system>/moe/vllm/<vllm>/moe_perf.csv.
	system, vllm string
	// kernel and dtype select the rows by their kernel_source and moe_dtype.
	kernel, dtype string
	// prec is the experts' precision: the entry of the profile
	// (MoEEfficiencies.forPrecision), the bytes of a weight and the peak FLOP/s.
	prec Precision
	// l2 is the L2 cache in bytes for rows whose touched experts would stay
	// in it between the benchmark's repetitions (0: no row left out).
	l2 float64
	// rows is the number of rows the fit uses: a check that the filter
	// selects what the profile's comment says.
	rows int
}

// moeRow is one timing of a fused MoE layer: tokens through a layer of
// experts experts of hidden × inter, k of them per token, sharded over tp
// ranks by columns and ep ranks by experts; seconds is the measured time.
type moeRow struct {
	tokens, hidden, inter, k, experts, tp, ep float64
	seconds                                   float64
}

// moeFitMaxRanks and moeFitMinColumns bound the rows a fit uses: at most
// moe_tp·moe_ep ranks (the deployments simulated), at least this many
// intermediate columns per rank (narrower shards run the kernels worse
// than any serving deployment does). moeFitMaxTokens is the largest step.
const (
	moeFitMaxRanks   = 16
	moeFitMinColumns = 128
	moeFitMaxTokens  = 16384
)

// readMoERows reads the rows of s from aiconfigurator's moe_perf table
// under dir: balanced routing (each token's k experts distinct and the
// pairs spread evenly, so a step touches min(E, T·k) experts), s's kernel
// and dtype, and within the bounds above. all, if set, keeps every
// balanced row of the kernel (any parallelism and shard width).
func readMoERows(dir string, s moeFitSpec, all bool) ([]moeRow, error) {
	path := filepath.Join(dir, s.system, "moe", "vllm", s.vllm, "moe_perf.csv")
	recs, err := readCSV(path)
	if err != nil {
		return nil, err
	}
	var rows []moeRow
	for _, r := range recs {
		if r.s("distribution") != "balanced" || r.s("kernel_source") != s.kernel || r.s("moe_dtype") != s.dtype {
			continue
		}
		m := moeRow{
			tokens: r.f("num_tokens"), hidden: r.f("hidden_size"), inter: r.f("inter_size"),
			k: r.f("topk"), experts: r.f("num_experts"), tp: r.f("moe_tp_size"), ep: r.f("moe_ep_size"),
			seconds: r.f("latency") / 1e3,
		}
		if !(m.seconds > 0) {
			return nil, fmt.Errorf("%s: row %v has no latency", path, r.rec)
		}
		if !all && (m.tp*m.ep > moeFitMaxRanks || m.inter/m.tp < moeFitMinColumns || m.tokens < 1 || m.tokens > moeFitMaxTokens) {
			continue
		}
		if !all && s.l2 > 0 && min(m.experts, m.tokens*m.k)/m.ep*3*m.hidden*m.inter/m.tp*s.prec.Bytes() <= s.l2 {
			continue
		}
		rows = append(rows, m)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows for %s/%s", path, s.kernel, s.dtype)
	}
	return rows, nil
}

// moeLayerSeconds is the time e gives the layer of r on one rank of gpu
// with experts stored in p: moeEfficiency's formula (as
// StepModel.fusedMoEStep prices it) with the experts the balanced routing
// touches, min(E, T·k) over all ranks, in place of the step model's
// expected distinct experts under uniform routing.
func moeLayerSeconds(e moeEfficiency, r moeRow, gpu GPUSpec, p Precision) float64 {
	bw := gpu.BandwidthBytesPerS
	pairs := r.tokens * r.k
	touched := min(r.experts, pairs)
	expert := 3 * r.hidden * r.inter / r.tp // elements of one expert's shard
	memory := touched / r.ep * expert * p.Bytes() / (bw * e.Bandwidth)
	perExpert := pairs / touched
	flops := 2 * pairs * expert / r.ep
	compute := flops * (perExpert + e.HalfTokens) / perExpert / (p.peak(gpu.PeakFLOPS) * e.GEMMMax)
	t := e.LayerOverhead + e.RoutingBytes*pairs*r.hidden/bw + max(memory, compute)
	if r.ep > 1 {
		t += e.EPOverhead
	}
	return t
}

// moeRMSLogError is the root mean square of log(predicted/measured) over rows.
func moeRMSLogError(e moeEfficiency, rows []moeRow, gpu GPUSpec, p Precision) float64 {
	var sum float64
	for _, r := range rows {
		d := math.Log(moeLayerSeconds(e, r, gpu, p) / r.seconds)
		sum += d * d
	}
	return math.Sqrt(sum / float64(len(rows)))
}

// moeFitStart is where every fit starts: round numbers inside the range
// of the fitted entries.
var moeFitStart = moeEfficiency{Bandwidth: 0.8, GEMMMax: 0.5, HalfTokens: 100, LayerOverhead: 30e-6, EPOverhead: 10e-6, RoutingBytes: 10}

// moeFit is the result of fitMoE.
type moeFit struct {
	// entry is the fitted entry.
	entry moeEfficiency
	// rmsLog is its root mean square log error over the rows.
	rmsLog float64
	// bandwidthFloor is the smallest Bandwidth at which the GEMM term binds
	// on every row (the weight read never does): the GEMM term at the
	// fewest tokens per touched expert, n = 1, over the time of the
	// touched weights at peak bandwidth,
	//
	//	peak·gemm_max·bytes per weight / (2·(1 + half_tokens)·BW)
	//
	// Every Bandwidth at or above it gives the same time to every row (and
	// to every step: the step model's n is at least 1 too), so the rows do
	// not identify Bandwidth there; fitMoE then reports bandwidthFloor.
	bandwidthFloor float64
}

// identified reports whether the rows fix the entry's Bandwidth: the
// weight read binds on some rows.
func (f moeFit) identified() bool { return f.entry.Bandwidth < f.bandwidthFloor }

// fitMoE fits a moeEfficiency to rows on gpu with experts in p by least
// squares on log time: Nelder–Mead from moeFitStart over the fractions'
// logits and the logs of the rest, restarted from its best point until a
// restart improves the mean squared log error by less than 1e-9. Where the
// rows do not identify Bandwidth (moeFit.bandwidthFloor) it is set to the
// floor, the smallest value with the same times.
func fitMoE(rows []moeRow, gpu GPUSpec, p Precision) (moeFit, error) {
	logit := func(x float64) float64 { return math.Log(x / (1 - x)) }
	sigmoid := func(y float64) float64 { return 1 / (1 + math.Exp(-y)) }
	decode := func(x []float64) moeEfficiency {
		return moeEfficiency{
			Bandwidth: sigmoid(x[0]), GEMMMax: sigmoid(x[1]), HalfTokens: math.Exp(x[2]),
			LayerOverhead: math.Exp(x[3]), EPOverhead: math.Exp(x[4]), RoutingBytes: math.Exp(x[5]),
		}
	}
	s := moeFitStart
	x := []float64{logit(s.Bandwidth), logit(s.GEMMMax), math.Log(s.HalfTokens), math.Log(s.LayerOverhead),
		math.Log(s.EPOverhead), math.Log(s.RoutingBytes)}
	loss := func(x []float64) float64 {
		e := decode(x)
		var sum float64
		for _, r := range rows {
			d := math.Log(moeLayerSeconds(e, r, gpu, p) / r.seconds)
			sum += d * d
		}
		return sum / float64(len(rows))
	}
	best := loss(x)
	for range 50 {
		res, err := optimize.Minimize(optimize.Problem{Func: loss}, x,
			&optimize.Settings{FuncEvaluations: 20000, Converger: &optimize.FunctionConverge{Absolute: 1e-12, Iterations: 200}},
			&optimize.NelderMead{})
		if err != nil {
			return moeFit{}, err
		}
		improved := best-res.F > 1e-9
		if res.F < best {
			x, best = res.X, res.F
		}
		if !improved {
			break
		}
	}
	f := moeFit{entry: decode(x), rmsLog: math.Sqrt(best)}
	f.bandwidthFloor = p.peak(gpu.PeakFLOPS) * f.entry.GEMMMax * p.Bytes() / (2 * (1 + f.entry.HalfTokens) * gpu.BandwidthBytesPerS)
	if !f.identified() {
		f.entry.Bandwidth = min(1, f.bandwidthFloor)
	}
	return f, nil
}

// moeFits are the catalog profiles' fused-MoE entries and the rows each is
// fitted to (docs/cost-model.md#fused-moe-kernels).
var moeFits = []moeFitSpec{
	{gpu: "h100-sxm", system: "h100_sxm", vllm: "0.19.0", kernel: "vllm_fused_moe", dtype: "bfloat16", prec: BF16, rows: 2943},
	{gpu: "h100-sxm", system: "h100_sxm", vllm: "0.19.0", kernel: "vllm_fused_moe", dtype: "fp8_block", prec: FP8, rows: 2484},
	{gpu: "h100-sxm", system: "h100_sxm", vllm: "0.24.0", kernel: "vllm_gptossmxfp4moe_triton_oaitritonmxfp4expertsmonolithic",
		dtype: "w4a16_mxfp4", prec: MXFP4, rows: 486},
	{gpu: "b200", system: "b200_sxm", vllm: "0.24.0", kernel: "vllm_unquantizedfusedmoe_flashinfer_trtllm_trtllmbf16experts", dtype: "bfloat16", prec: BF16, rows: 2997},
	{gpu: "b200", system: "b200_sxm", vllm: "0.24.0", kernel: "vllm_fp8moe_flashinfer_trtllm_trtllmfp8expertsmonolithic", dtype: "fp8_block", prec: FP8, rows: 2754},
	{gpu: "b200", system: "b200_sxm", vllm: "0.24.0", kernel: "vllm_compressedtensorsw4a4nvfp4moe_flashinfer_trtllm_trtllmnvfp4expertsmonolithic",
		dtype: "nvfp4", prec: FP4, rows: 3192},
	{gpu: "b300", system: "b300_sxm", vllm: "0.24.0", kernel: "vllm_unquantizedfusedmoe_flashinfer_trtllm_trtllmbf16experts", dtype: "bfloat16", prec: BF16, rows: 2971},
	{gpu: "b300", system: "b300_sxm", vllm: "0.24.0", kernel: "vllm_fp8moe_flashinfer_trtllm_trtllmfp8expertsmonolithic", dtype: "fp8_block", prec: FP8, rows: 2754},
	{gpu: "b300", system: "b300_sxm", vllm: "0.24.0", kernel: "vllm_compressedtensorsw4a4nvfp4moe_flashinfer_trtllm_trtllmnvfp4expertsmonolithic",
		dtype: "nvfp4", prec: FP4, rows: 3218},
	// The L2 rule of profiles/rtxpro6000.yaml: rows whose touched experts fit
	// in GB202's 128 MiB L2 run from it across the benchmark's repetitions
	// (Qwen3-30B-A3B's layer at one token: 75 MB in 31 us, 1.35x the
	// datasheet bandwidth), which a serving step streaming every layer does not.
	{gpu: "rtxpro6000", system: "rtx_pro_6000_server", vllm: "0.19.0", kernel: "vllm_fused_moe", dtype: "bfloat16", prec: BF16,
		l2: 128 << 20, rows: 2807},
	// INT4 weight-only experts (compressed-tensors W4A16, Kimi-K2.5's
	// checkpoint) through vLLM's own FusedMoE path, which picks Marlin; the
	// 0.19.0 collector called Marlin directly at 1.6 to 3.4 times these times.
	{gpu: "b200", system: "b200_sxm", vllm: "0.24.0", kernel: "vllm_compressedtensorswna16marlinmoe_marlin_marlinexperts", dtype: "int4_wo", prec: INT4, rows: 243},
}

// moeFitTolerance is the relative difference allowed between a profile's
// entry and the fit: the files keep three significant digits.
// moeFitZeroSeconds is the absolute difference allowed on the two fixed
// times: a time the fit drives to its bound, 0, only approaches it (the fit
// works on its logarithm, so 1e-18 s and 1e-17 s lose the same), and the
// file writes 0; 10 ns is far below any fixed time the rows resolve.
const (
	moeFitTolerance   = 0.02
	moeFitZeroSeconds = 1e-8
)

// TestMoEEntriesMatchData refits every catalog fused-MoE entry from
// aiconfigurator's per-operator MoE timings converted to CSV
// (SERVESIM_AIC_DATA laid out as systems/data, each moe_perf.parquet as
// moe_perf.csv beside it; docs/cost-model.md#fused-moe-kernels) and checks
// the profile file against the fit: each knob within moeFitTolerance (a
// fixed time within moeFitZeroSeconds too), a Bandwidth the rows do not identify at or above its floor (the same
// times), and the file's RMS log error over the rows within 0.002 of the
// fit's. No serving row is used.
func TestMoEEntriesMatchData(t *testing.T) {
	dir := os.Getenv("SERVESIM_AIC_DATA")
	if dir == "" {
		t.Skip("set SERVESIM_AIC_DATA to aiconfigurator's systems/data converted to CSV (docs/cost-model.md#fused-moe-kernels)")
	}
	for _, s := range moeFits {
		t.Run(s.gpu+"/"+s.prec.String(), func(t *testing.T) {
			t.Parallel()
			gpu := gpus[s.gpu]
			rows, err := readMoERows(dir, s, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != s.rows {
				t.Errorf("%d rows, want %d", len(rows), s.rows)
			}
			fit, err := fitMoE(rows, gpu, s.prec)
			if err != nil {
				t.Fatal(err)
			}
			prof, err := embeddedProfile(s.gpu)
			if err != nil {
				t.Fatal(err)
			}
			file := prof.MoE.forPrecision(s.prec)
			if file.IsZero() {
				t.Fatalf("profiles/%s.yaml has no moe.%s entry; the fit gives %+v", s.gpu, s.prec, fit.entry)
			}
			got, want := fit.entry, file
			for _, c := range []struct {
				name           string
				fit, file, abs float64
			}{
				{"gemm_max", got.GEMMMax, want.GEMMMax, 0}, {"half_tokens", got.HalfTokens, want.HalfTokens, 0},
				{"layer_overhead_s", got.LayerOverhead, want.LayerOverhead, moeFitZeroSeconds},
				{"ep_overhead_s", got.EPOverhead, want.EPOverhead, moeFitZeroSeconds},
				{"routing_bytes", got.RoutingBytes, want.RoutingBytes, 0},
			} {
				if math.Abs(c.file-c.fit) > max(moeFitTolerance*c.fit, c.abs) {
					t.Errorf("%s: file %.4g, fit %.4g", c.name, c.file, c.fit)
				}
			}
			switch {
			case fit.identified() && math.Abs(want.Bandwidth-got.Bandwidth) > moeFitTolerance*got.Bandwidth:
				t.Errorf("bandwidth: file %.4g, fit %.4g", want.Bandwidth, got.Bandwidth)
			case !fit.identified() && want.Bandwidth < fit.bandwidthFloor-0.005:
				t.Errorf("bandwidth: file %.4g below %.4g, the floor of the values the rows do not tell apart", want.Bandwidth, fit.bandwidthFloor)
			}
			fileRMS := moeRMSLogError(file, rows, gpu, s.prec)
			if fileRMS > fit.rmsLog+0.002 {
				t.Errorf("RMS log error: file %.4f, fit %.4f", fileRMS, fit.rmsLog)
			}
			all, err := readMoERows(dir, s, true)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s %s/%s: %d rows; fit %s (bandwidth identified: %v, floor %.3f); RMS log error %.3f (file %.3f), median |error| %.1f%%; all %d balanced rows %.3f",
				s.vllm, s.kernel, s.dtype, len(rows), formatMoE(got), fit.identified(), fit.bandwidthFloor, fit.rmsLog, fileRMS,
				100*moeMedianAbsError(file, rows, gpu, s.prec), len(all), moeRMSLogError(file, all, gpu, s.prec))
		})
	}
}

// moeMedianAbsError is the median of |predicted/measured − 1| over rows.
func moeMedianAbsError(e moeEfficiency, rows []moeRow, gpu GPUSpec, p Precision) float64 {
	errs := make([]float64, len(rows))
	for i, r := range rows {
		errs[i] = math.Abs(moeLayerSeconds(e, r, gpu, p)/r.seconds - 1)
	}
	return median(errs)
}

// formatMoE writes e as a profile's flow mapping, three significant digits.
func formatMoE(e moeEfficiency) string {
	return fmt.Sprintf("{bandwidth: %.3g, gemm_max: %.3g, half_tokens: %.3g, layer_overhead_s: %.3g, ep_overhead_s: %.3g, routing_bytes: %.3g}",
		e.Bandwidth, e.GEMMMax, e.HalfTokens, e.LayerOverhead, e.EPOverhead, e.RoutingBytes)
}

// TestMoELayerSecondsMatchesStepModel: the fit's per-row formula is the
// step model's. At one token the balanced routing of the rows and the
// uniform routing of the step model touch the same k experts, so the two
// agree to rounding, with and without expert parallelism.
func TestMoELayerSecondsMatchesStepModel(t *testing.T) {
	t.Parallel()
	e := moeEfficiency{Bandwidth: 0.8, GEMMMax: 0.5, HalfTokens: 100, LayerOverhead: 30e-6, EPOverhead: 10e-6, RoutingBytes: 8}
	for _, prec := range []Precision{BF16, FP8, FP4} {
		for _, par := range []struct{ tp, ep int }{{1, 1}, {4, 1}, {4, 4}, {8, 2}} {
			m := ModelSpec{Name: "one moe layer", Hidden: 3072, Intermediate: 1536, Layers: 1, Heads: 8, KVHeads: 8,
				HeadDim: 128, Vocab: 1000, Experts: 256, ExpertsPerToken: 8, ExpertIntermediate: 1536,
				WeightBytes: 2, KVBytes: 2, ActBytes: 2, GEMM: BF16}.WithWeights(prec)
			var prof Profile
			switch prec {
			case BF16:
				prof.MoE.BF16 = e
			case FP8:
				prof.MoE.FP8 = e
			case FP4:
				prof.MoE.NVFP4 = e
			}
			gpu := mustGPU(t, "b200")
			d := Deployment{Model: m, GPU: gpu, TP: par.tp, EP: par.ep, Profile: &prof}
			step := d.Step(DecodeBatch(1, 0)).MoETime
			row := moeRow{tokens: 1, hidden: 3072, inter: 1536, k: 8, experts: 256, tp: float64(par.tp / par.ep), ep: float64(par.ep)}
			if got := moeLayerSeconds(e, row, gpu, prec); math.Abs(got-step) > 1e-9*step {
				t.Errorf("%s tp %d ep %d: fit formula %.6g s, step model %.6g s", prec, par.tp, par.ep, got, step)
			}
		}
	}
}
