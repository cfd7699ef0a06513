package cost

import (
	"slices"
	"strings"
)

// ForGPU checks that p describes the GPU named gpu (a catalog name, as
// GPUSpec.Name): a profile's numbers are fractions of one GPU's peaks,
// fitted on that GPU's runs, so a profile that names no GPU, or another
// GPU, would price steps by numbers nobody measured there. The error says
// what to give instead; to use another GPU's numbers deliberately, set the
// file's gpu to this one.
func (p Profile) ForGPU(gpu string) error {
	switch {
	case p.GPU == "":
		return invalidf("the profile names no GPU (its gpu field is empty): set gpu to the catalog name of the GPU it was fitted on (%s for this deployment, if so)", gpu)
	case p.GPU != gpu:
		return invalidf("the profile describes %s, not the deployment's %s: give %s's profile (servesim calibrate on its runs) or \"default\" for its built-in one; to use %s's numbers on %s deliberately, copy the file and set its gpu to %s", p.GPU, gpu, gpu, p.GPU, gpu, gpu)
	}
	return nil
}

// memoryType returns the device-memory technology of catalog GPU name as
// its datasheet prints it (GDDR6, GDDR6X, GDDR7, HBM2, HBM2e, HBM3,
// HBM3e), or "" for a GPU it does not know.
func memoryType(name string) string { return memoryTypes[name] }

// memoryClass returns "GDDR" or "HBM", the memory class of catalog GPU
// name that datasheetProfile's rule groups GPUs by, or "" for a GPU
// without a memoryType.
func memoryClass(name string) string {
	t := memoryTypes[name]
	switch {
	case strings.HasPrefix(t, "GDDR"):
		return "GDDR"
	case strings.HasPrefix(t, "HBM"):
		return "HBM"
	}
	return ""
}

// memoryTypes is each catalog GPU's memory, from the datasheets cited at
// its catalog entry (catalog.go).
var memoryTypes = map[string]string{
	"a10g": "GDDR6", "l4": "GDDR6", "l40s": "GDDR6", "rtx4090": "GDDR6X",
	"rtx5090": "GDDR7", "rtxpro6000": "GDDR7",
	"a100-40gb": "HBM2", "a100-80gb": "HBM2e", "h100-pcie": "HBM2e", "h100-sxm": "HBM3", "h20": "HBM3",
	"h200": "HBM3e", "b200": "HBM3e", "b300": "HBM3e", "gb200": "HBM3e", "mi300x": "HBM3", "mi325x": "HBM3e",
}

// microbenchmark holds published measurements of one GPU that
// datasheetProfile uses in place of its memory class's fractions; a zero
// field is not measured.
type microbenchmark struct {
	// GEMM is the best dense BF16 GEMM rate measured (PyTorch or cuBLASLt
	// matmul over a search of shapes, FP32 accumulation), in FLOP/s.
	GEMM float64
	// GEMMSource names where GEMM was published.
	GEMMSource string
	// DecodeTokensPerS is the single-stream decode rate, tokens/s, of a
	// dense model of DecodeWeightBytes of 16-bit weights and DecodeLayers
	// layers at a short context (a batch-1 step streams every weight once).
	DecodeTokensPerS, DecodeWeightBytes float64
	DecodeLayers                        int
	// DecodeSource names where the decode rate was published.
	DecodeSource string
}

// microbenchmarks are the published measurements datasheetProfile reads,
// by catalog GPU name (docs/cost-model.md#profiles-from-datasheets). The
// GEMM rates of the profiled GPUs (a100-80gb, h100-sxm, l40s) fit the
// rule's ratio of serving GEMM fraction to measured GEMM fraction; the
// others replace their memory class's GEMM fraction.
var microbenchmarks = map[string]microbenchmark{
	"h100-sxm":  {GEMM: 792.1e12, GEMMSource: mamfSource},
	"a100-80gb": {GEMM: 267.9e12, GEMMSource: mamfSource + " (A100 SXM)"},
	"l40s":      {GEMM: 252.0e12, GEMMSource: mamfSource},
	"l4":        {GEMM: 91.4e12, GEMMSource: mamfSource},
	"a10g":      {GEMM: 69.7e12, GEMMSource: "github.com/mag-/gpu_benchmark README, an earlier version of its Stats table"},
	"mi300x":    {GEMM: 758.3e12, GEMMSource: mamfSource},
	// No published MI325X matmul was found: the MI300X's, the same CDNA 3
	// compute at the same datasheet peak.
	"mi325x":  {GEMM: 758.3e12, GEMMSource: "the MI300X's rate (same CDNA 3 compute and peak): " + mamfSource},
	"rtx5090": {GEMM: 254.03e12, GEMMSource: "github.com/xzwgit/gpu-flops-bench README (cuBLASLt dense BF16, median of the best shape; its RTX 4090 figure, 179.2 TFLOP/s, is within 0.4% of the table above)"},
	// llama.cpp's RTX 4090 row: LLaMA-7B F16, 12.55 GiB of weights, 32
	// layers, tg128 61.03 tokens/s.
	"rtx4090": {GEMM: 178.5e12, GEMMSource: mamfSource,
		DecodeTokensPerS: 61.03, DecodeWeightBytes: 12.55 * GiB, DecodeLayers: 32,
		DecodeSource: "github.com/ggml-org/llama.cpp pull 4766 (llama-bench, LLaMA 7B F16 on an RTX 4090, tg 128)"},
}

const mamfSource = "github.com/mag-/gpu_benchmark README, Stats table (maximum achievable BF16 matmul, Stas Bekman's mamf-finder with an Optuna shape search)"

// datasheetPrefix starts the Provenance.Source of every profile built by
// datasheetProfile (Profile.Pricing reports them as DATASHEET profiles).
const datasheetPrefix = "datasheet rule"

// datasheetProfile returns the profile of gpu by the memory-class rule of
// docs/cost-model.md#profiles-from-datasheets, for a GPU without
// per-operator timings: each kernel fraction (bandwidth, gemm.max,
// attention prefill and decode) and the per-layer time is the median of
// the catalog's per-operator profiles of GPUs of the same memoryClass,
// gpu's own profile left out; where microbenchmarks has a measurement of
// gpu it replaces the class's fraction (GEMM: the measured fraction of the
// datasheet BF16 peak times the median ratio of serving to measured GEMM
// fraction over the profiled GPUs with a measurement; bandwidth: the rate
// at which the published batch-1 decode streamed its weights once the
// per-layer time is taken off), and the attention fraction of the same
// kind moves with it. The GEMM curve's half_tokens (at most gpu's GEMM
// ridge, gemmRidge) and the CPU-side overheads are referenceProfileGPU's; sampling is 16 bytes per
// vocabulary entry at the profile's bandwidth; no MoE entries (routed
// experts run on the dense fractions). Every fraction is capped at 1.
// The error matches ErrUnknownName for a GPU without a memory class and
// ErrInvalidSpec when no profiled GPU shares its class.
func datasheetProfile(gpu GPUSpec) (Profile, error) {
	class := memoryClass(gpu.Name)
	if class == "" {
		return Profile{}, errorf(ErrUnknownName, "gpu %q has no memory type in the catalog (known: %s): datasheetProfile needs its memory class", gpu.Name, strings.Join(sortedKeys(memoryTypes), ", "))
	}
	if err := gpu.Validate(); err != nil {
		return Profile{}, err
	}
	var bw, gemm, pre, dec, layer, ratio []float64
	for _, name := range profileNames() {
		p, err := embeddedProfile(name)
		if err != nil || name == gpu.Name || strings.HasPrefix(p.Provenance.Source, datasheetPrefix) {
			continue
		}
		if m := microbenchmarks[name]; m.GEMM > 0 && gpus[name].PeakFLOPS.BF16 > 0 {
			ratio = append(ratio, p.GEMM.Max/(m.GEMM/gpus[name].PeakFLOPS.BF16))
		}
		if memoryClass(name) != class {
			continue
		}
		bw = append(bw, p.Bandwidth)
		gemm = append(gemm, p.GEMM.Max)
		pre = append(pre, p.Attention.Prefill)
		dec = append(dec, p.Attention.Decode)
		layer = append(layer, p.StepOverhead.PerLayer)
	}
	if len(bw) == 0 {
		return Profile{}, invalidf("gpu %q: no per-operator profile of a %s GPU to take fractions from", gpu.Name, class)
	}
	ref, err := embeddedProfile(referenceProfileGPU)
	if err != nil {
		return Profile{}, err
	}
	p := Profile{
		GPU:              gpu.Name,
		Bandwidth:        medianOf(bw),
		GEMM:             gemmEfficiency{Max: medianOf(gemm), HalfTokens: ref.GEMM.HalfTokens},
		Attention:        attentionEfficiency{Prefill: medianOf(pre), Decode: medianOf(dec)},
		StepOverhead:     StepOverhead{PerLayer: medianOf(layer), PerSeq: ref.StepOverhead.PerSeq, Base: ref.StepOverhead.Base},
		FrontendOverhead: ref.FrontendOverhead,
	}
	from := "the " + class + " class"
	m := microbenchmarks[gpu.Name]
	if peak := gpu.PeakFLOPS.BF16; m.GEMM > 0 && peak > 0 && len(ratio) > 0 {
		g := min(1, medianOf(ratio)*m.GEMM/peak)
		p.Attention.Prefill = min(1, p.Attention.Prefill*g/p.GEMM.Max)
		p.GEMM.Max = g
		from += "; GEMM from a published matmul rate"
	}
	if m.DecodeTokensPerS > 0 && m.DecodeWeightBytes > 0 {
		stream := 1/m.DecodeTokensPerS - float64(m.DecodeLayers)*p.StepOverhead.PerLayer
		if stream > 0 {
			f := min(1, m.DecodeWeightBytes/(stream*gpu.BandwidthBytesPerS))
			p.Attention.Decode = min(1, p.Attention.Decode*f/p.Bandwidth)
			p.Bandwidth = f
			from += "; bandwidth from a published batch-1 decode"
		}
	}
	// The step model caps the curve at the ridge; the file holds what it
	// uses (the H20's 32 tokens; every other GPU's ridge is above 120).
	p.GEMM.HalfTokens = min(p.GEMM.HalfTokens, gemmRidge(2, gpu.PeakFLOPS.BF16, p.GEMM.Max, gpu.BandwidthBytesPerS, p.Bandwidth))
	p.SamplingPerVocab = 16 / (gpu.BandwidthBytesPerS * p.Bandwidth)
	p.Provenance = Provenance{
		Source:  datasheetPrefix + " (" + memoryType(gpu.Name) + ", " + from + "), no per-operator data or serving run of this GPU: datasheet peaks and bandwidth",
		Version: "1",
	}
	return p, p.Validate()
}

// medianOf returns the median of xs (len ≥ 1); it sorts a copy.
func medianOf(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
