package cost

import (
	"bytes"
	"embed"
	"errors"
	"io"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// Profile is the per-GPU efficiency profile of the step model
// (docs/cost-model.md#efficiency-profiles): what fraction of the roofline a
// real engine reaches for each kind of work, and the fixed costs a roofline
// does not see. It replaces the three numbers of Efficiency inside the step
// model; an Efficiency is the special case Efficiency.profile (one GEMM
// efficiency for every step size, attention as efficient as the rest, no
// per-sequence, frontend or sampling cost), and gives bit-identical step
// times.
//
// Profiles are data: the catalog's are YAML files under cost/profiles,
// each number with its source (DefaultProfile, profileNames); LoadProfile
// reads a user's, such as one written by package calibrate.
type Profile struct {
	// GPU is the catalog name of the GPU the profile describes (h100-sxm),
	// for lookup and reports. A Deployment does not check it; scenario
	// files and the CLI refuse a profile of another GPU (ForGPU).
	GPU string `json:"gpu" yaml:"gpu"`
	// Bandwidth is the achieved fraction of peak memory bandwidth when a
	// step streams the weights, in (0, 1].
	Bandwidth float64 `json:"bandwidth" yaml:"bandwidth"`
	// GEMM is the achieved fraction of peak FLOP/s of the projections as a
	// function of the tokens in the step.
	GEMM gemmEfficiency `json:"gemm" yaml:"gemm"`
	// Attention holds the efficiencies of the attention kernels.
	Attention attentionEfficiency `json:"attention" yaml:"attention"`
	// StepOverhead is the time a step costs beyond its kernels.
	StepOverhead StepOverhead `json:"step_overhead" yaml:"step_overhead"`
	// FrontendOverhead is a fixed time per request before it reaches the
	// scheduler and after its tokens leave it (tokenisation, HTTP, API
	// server to engine IPC, detokenisation), in seconds, ≥ 0. The batching
	// engine adds it to batching.Config.RequestOverhead, so it counts in
	// TTFT and E2E.
	FrontendOverhead float64 `json:"frontend_overhead_s" yaml:"frontend_overhead_s"`
	// SamplingPerVocab is the time sampling takes per sampled sequence and
	// per vocabulary entry (softmax and top-k/top-p over the logits), in
	// seconds, ≥ 0: a step adds SamplingPerVocab × vocab × sequences.
	SamplingPerVocab float64 `json:"sampling_s_per_vocab" yaml:"sampling_s_per_vocab"`
	// MoE prices the routed experts of mixture-of-experts models per
	// expert precision, as the fused MoE kernels run them (moeEfficiency);
	// a precision without an entry leaves them on the roofline above.
	MoE MoEEfficiencies `json:"moe,omitzero" yaml:"moe,omitempty"`
	// Provenance says where the numbers come from.
	Provenance Provenance `json:"provenance" yaml:"provenance"`
}

// gemmEfficiency is the saturating curve
//
//	η(T) = Max · T / (T + HalfTokens)
//
// of the achieved fraction of peak FLOP/s of the projections of a step of T
// tokens: small steps run far below peak, large ones close to Max. A zero
// HalfTokens is one efficiency, Max, for every step size.
type gemmEfficiency struct {
	// Max is the efficiency of very large steps, in (0, 1].
	Max float64 `json:"max" yaml:"max"`
	// HalfTokens is the step size at which η reaches Max/2, tokens, ≥ 0.
	HalfTokens float64 `json:"half_tokens" yaml:"half_tokens"`
}

// At returns η(tokens); at tokens ≤ 0 it returns Max when HalfTokens is 0
// and 0 otherwise.
func (g gemmEfficiency) At(tokens float64) float64 {
	if g.HalfTokens == 0 {
		return g.Max
	}
	if tokens <= 0 {
		return 0
	}
	return g.Max * tokens / (tokens + g.HalfTokens)
}

// attentionEfficiency holds the achieved fractions of the attention
// kernels.
type attentionEfficiency struct {
	// Prefill is the achieved fraction of peak FLOP/s of the attention
	// scores over prompt tokens (QKᵀ and PV over the chunk and the cached
	// context), in (0, 1].
	Prefill float64 `json:"prefill" yaml:"prefill"`
	// Decode is the achieved fraction of peak memory bandwidth when decode
	// attention reads the KV cache, in (0, 1].
	Decode float64 `json:"decode" yaml:"decode"`
}

// StepOverhead is the time per step outside the kernels' roofline: a part
// per layer (the fixed time of each of a layer's kernels: norms, rotary
// embedding, activation, cache writes and the GEMMs' own start-up, which do
// not shrink with the batch or with TP), a fixed part (the scheduler's
// fixed work) and a part per sequence in the step (input preparation, the
// scheduler's and output processor's per-request work), in seconds:
// Base + PerLayer × layers + PerSeq × sequences.
type StepOverhead struct {
	// Base is the fixed time per step, seconds, ≥ 0.
	Base float64 `json:"base_s" yaml:"base_s"`
	// PerLayer is the time per transformer layer of the model, seconds,
	// ≥ 0: a 36-layer model pays 36 × PerLayer a step, an 80-layer one
	// 80 × PerLayer.
	PerLayer float64 `json:"per_layer_s,omitempty" yaml:"per_layer_s,omitempty"`
	// PerSeq is the time per sequence scheduled in the step (decoding
	// requests and prefill chunks), seconds, ≥ 0.
	PerSeq float64 `json:"per_seq_s" yaml:"per_seq_s"`
}

// Provenance records where a profile's numbers come from.
type Provenance struct {
	// Source names the data (files, repositories at a commit, datasheets).
	Source string `json:"source" yaml:"source"`
	// FittedOn describes the measurements a fit used (e.g. "90 rows of
	// aiconfigurator_vllm_silicon.csv: Qwen3-32B BF16 on H100, TP 2/4/8").
	FittedOn string `json:"fitted_on,omitempty" yaml:"fitted_on,omitempty"`
	// Version identifies the profile (e.g. "2", or a date); bump it when a
	// number changes.
	Version string `json:"version" yaml:"version"`
	// BorrowedFrom names the GPU whose profile these numbers are, when the
	// GPU has none of its own (DefaultProfile's carry-over); "" otherwise.
	BorrowedFrom string `json:"borrowed_from,omitempty" yaml:"borrowed_from,omitempty"`
}

// profile returns the profile that e is a special case of: Bandwidth for
// weights and KV reads alike, FLOPs for every GEMM size and for attention,
// StepOverhead as the fixed part, and no per-sequence, frontend or sampling
// cost (zero fractions read as 1, as in Efficiency). A deployment using it
// predicts the same step times as one using e, to the bit.
func (e Efficiency) profile() Profile {
	bw, fl := e.fractions()
	return Profile{
		Bandwidth:    bw,
		GEMM:         gemmEfficiency{Max: fl},
		Attention:    attentionEfficiency{Prefill: fl, Decode: bw},
		StepOverhead: StepOverhead{Base: e.StepOverhead},
		Provenance:   Provenance{Source: "cost.Efficiency", Version: "1"},
	}
}

// Validate reports every problem with p, each an ErrInvalidSpec
// *fielderr.Error naming the field (its key in a profile file), the value
// and the limit, joined with errors.Join in the order of the fields.
func (p Profile) Validate() error {
	var errs []error
	// Physical bounds: an efficiency below a millionth of the peak, or
	// an overhead past a minute a step, describes no GPU; such values
	// (1e-300, 1e300) would otherwise give runs of 1e300 seconds.
	const minFraction, maxSeconds, maxTokens = 1e-6, 60.0, 1e9
	fraction := func(name string, v float64) {
		if !(v >= minFraction && v <= 1) {
			errs = append(errs, invalidField(name, v, "must be in [%v, 1] (a fraction of the peak; below a millionth no GPU runs)", minFraction))
		}
	}
	bounded := func(name string, v, limit float64, unit string) {
		if !nonNegativeFinite(v) || v > limit {
			errs = append(errs, invalidField(name, v, "must be a number from 0 to %v %s", limit, unit))
		}
	}
	nonNeg := func(name string, v float64) { bounded(name, v, maxSeconds, "s (no GPU step waits a minute)") }
	fraction("bandwidth", p.Bandwidth)
	fraction("gemm.max", p.GEMM.Max)
	bounded("gemm.half_tokens", p.GEMM.HalfTokens, maxTokens, "tokens")
	fraction("attention.prefill", p.Attention.Prefill)
	fraction("attention.decode", p.Attention.Decode)
	nonNeg("step_overhead.base_s", p.StepOverhead.Base)
	nonNeg("step_overhead.per_layer_s", p.StepOverhead.PerLayer)
	nonNeg("step_overhead.per_seq_s", p.StepOverhead.PerSeq)
	nonNeg("frontend_overhead_s", p.FrontendOverhead)
	nonNeg("sampling_s_per_vocab", p.SamplingPerVocab)
	errs = append(errs, p.MoE.problems("moe")...)
	return errors.Join(errs...)
}

// readProfile reads a profile from YAML (or JSON, a subset of YAML) whose
// keys are the struct's snake_case tags, rejects unknown keys, and
// validates it.
func readProfile(r io.Reader) (Profile, error) {
	var p Profile
	dec := yaml.NewDecoder(r)
	dec.KnownFields(true)
	if err := dec.Decode(&p); err != nil {
		if errors.Is(err, io.EOF) {
			err = errors.New("empty document")
		}
		return Profile{}, errorf(ErrInvalidSpec, "profile: %v", err)
	}
	if err := p.Validate(); err != nil {
		return Profile{}, err
	}
	return p, nil
}

// LoadProfile reads a profile file (YAML or JSON); see readProfile. A
// profile written by package calibrate loads here.
func LoadProfile(path string) (Profile, error) {
	var p Profile
	if err := decodeFile(path, &p); err != nil {
		return Profile{}, err
	}
	if err := p.Validate(); err != nil {
		return Profile{}, within(path, err)
	}
	return p, nil
}

// MarshalYAMLBytes returns p as a YAML document that readProfile reads
// back to an equal profile.
func (p Profile) MarshalYAMLBytes() ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

//go:embed profiles/*.yaml
var profileFiles embed.FS

// profileNames lists the GPUs with a profile file in the catalog, sorted.
func profileNames() []string {
	entries, _ := fs.ReadDir(profileFiles, "profiles")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), path.Ext(e.Name())))
	}
	slices.Sort(names)
	return names
}

// embeddedProfile returns the profile file of GPU name (see profileNames);
// the error matches ErrUnknownName when there is none. Outside the package
// DefaultProfile gives the same profile for a GPU that has a file.
func embeddedProfile(name string) (Profile, error) {
	c, ok := catalogProfile(name)
	if !ok {
		return Profile{}, errorf(ErrUnknownName, "no profile for gpu %q (profiles: %s)", name, strings.Join(profileNames(), ", "))
	}
	return c.profile, c.err
}

// catalogEntry is one embedded profile file, parsed, or why it does not
// parse.
type catalogEntry struct {
	profile Profile
	err     error
}

// catalogProfiles holds, for each embedded profile file, the parse of it,
// done once on first use: every engine batching.Defaults builds takes its
// GPU's profile (a Profile holds no pointers, so each caller gets its own
// copy). Files are parsed one by one as they are asked for, so a caller
// that prices one GPU (the browser page's first view) parses one file.
var catalogProfiles = sync.OnceValue(func() map[string]func() catalogEntry {
	out := map[string]func() catalogEntry{}
	for _, name := range profileNames() {
		file := "profiles/" + name + ".yaml"
		out[name] = sync.OnceValue(func() catalogEntry {
			data, err := profileFiles.ReadFile(file)
			var p Profile
			if err == nil {
				p, err = readProfile(bytes.NewReader(data))
			}
			return catalogEntry{p, within(file, err)}
		})
	}
	return out
})

// catalogProfile returns the parsed profile file of GPU name, and false
// when the catalog has none.
func catalogProfile(name string) (catalogEntry, bool) {
	parse, ok := catalogProfiles()[name]
	if !ok {
		return catalogEntry{}, false
	}
	return parse(), true
}

// DefaultProfile returns the profile for gpu: its catalog profile when
// there is one (embeddedProfile(gpu.Name): a serving fit, or for a GPU with
// per-operator timings but no serving measurements the transfer rule of
// docs/cost-model.md#profiles-by-the-transfer-rule), otherwise the
// carry-over of docs/cost-model.md#efficiency-profiles: the fractions and
// overheads of the profile of the same chip (the A100 40GB takes the A100
// 80GB's) or else of the reference profile (referenceProfileGPU, the GPU
// with the most public measurements), with the bandwidth-bound sampling
// cost rescaled to gpu's bandwidth. Provenance says which applied
// (BorrowedFrom), and MeasuredError the error to expect.
func DefaultProfile(gpu GPUSpec) Profile {
	if c, ok := catalogProfile(gpu.Name); ok && c.err == nil {
		return c.profile
	}
	refName := referenceProfileGPU
	if s, ok := sameSilicon[gpu.Name]; ok {
		refName = s
	}
	ref, err := embeddedProfile(refName)
	if err != nil {
		panic("cost: the reference profile does not load: " + err.Error()) // a broken embedded file
	}
	p := ref
	p.GPU = gpu.Name
	if bw := gpus[refName].BandwidthBytesPerS; gpu.BandwidthBytesPerS > 0 && bw > 0 {
		p.SamplingPerVocab = ref.SamplingPerVocab * bw / gpu.BandwidthBytesPerS
	}
	p.Provenance = Provenance{
		Source:       "rule: fractions and overheads of profiles/" + refName + ".yaml (" + ref.Provenance.Source + "); sampling scaled by bandwidth",
		Version:      ref.Provenance.Version,
		BorrowedFrom: refName,
	}
	return p
}

// sameSilicon maps a catalog GPU without a profile to the profiled GPU of
// the same chip, whose kernels it runs: the A100 40GB is the A100 80GB's
// GA100 with HBM2 instead of HBM2e (NVIDIA A100 datasheet), so its kernel
// fractions and CPU-side overheads are the 80GB's file's, against its own
// datasheet bandwidth. Any other GPU without a profile borrows
// referenceProfileGPU's (the H100 PCIe is the H100 SXM's GH100 at fewer
// SMs and clocks, which the datasheet peaks carry).
var sameSilicon = map[string]string{"a100-40gb": "a100-80gb"}

// referenceProfileGPU is the GPU whose profile DefaultProfile carries over
// to GPUs without one of their own or of their chip (sameSilicon).
const referenceProfileGPU = "h100-sxm"

// profile returns the efficiency profile the deployment's step model uses:
// Profile when set, else Eff.Profile().
func (d *Deployment) profile() Profile {
	if d.Profile != nil {
		return *d.Profile
	}
	return d.Eff.profile()
}

// FrontendOverhead returns the per-request frontend time of the
// deployment's profile, in seconds (0 without a Profile).
func (d Deployment) FrontendOverhead() float64 {
	if d.Profile == nil {
		return 0
	}
	return d.Profile.FrontendOverhead
}

// gemmRidge returns the step size, in tokens, at which the projections'
// FLOPs at the GEMM curve's max take as long as streaming their weights:
// 2 FLOPs per weight per token at peak × max against weightBytes per
// weight at bandwidth × fraction, weightBytes·peak·max / (2·bandwidth·
// fraction); +Inf when the bandwidth is not known.
//
// The step model caps the curve's HalfTokens at it
// (docs/cost-model.md#efficiency-profiles). The curve's time over the
// roofline's FLOPs, (T + half)/T, is a fixed half × 2 FLOPs per weight at
// that rate: half/ridge of the weights' streaming time. Past the ridge the
// curve alone would make a GEMM of one token slower than its weights'
// streaming, a compute time that stands for a memory bound. Fitted on
// H100 (half 120 against a ridge of 247 tokens), the curve is below it on
// every profile with per-operator data (half/ridge 0.33-0.81 at BF16), and
// datasheetProfile's files hold at most it; carried as tokens to a
// GPU of less compute per byte (the H20: 148 TFLOP/s dense BF16 at
// 4.0 TB/s, a ridge of 32 tokens) it priced a batch-1 decode three times
// its weights' streaming time against a measured run that streams them.
// Capped, that step is memory-bound as measured, and so are small-batch
// steps of 4-bit weights on a 16-bit GEMM (a ridge of 62 tokens on H100).
func gemmRidge(weightBytes, peakFLOPS, gemmMax, bandwidth, fraction float64) float64 {
	if !(bandwidth*fraction > 0) {
		return math.Inf(1)
	}
	return weightBytes * peakFLOPS * gemmMax / (2 * bandwidth * fraction)
}

// gemmFactor returns (T + half)/T, the factor by which the GEMM time of a
// step of t tokens exceeds its time at the curve's Max; exactly 1 when
// half is 0.
func gemmFactor(t, half float64) float64 {
	if half == 0 {
		return 1
	}
	return (t + half) / t
}
