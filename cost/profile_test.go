package cost

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEfficiencyProfileBitIdentical checks that routing an Efficiency
// through its Profile reproduces the step-time formula of
// docs/cost-model.md#step-time to the bit, operation for operation, on
// random batches, TP degrees and efficiencies.
func TestEfficiencyProfileBitIdentical(t *testing.T) {
	t.Parallel()
	m, _ := Model("llama-3.1-70b")
	g, _ := GPU("h100-sxm")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		e := Efficiency{Bandwidth: 0.5 + 0.5*rng.Float64(), FLOPs: 0.3 + 0.7*rng.Float64(), StepOverhead: 2e-3 * rng.Float64()}
		if i%7 == 0 {
			e = Efficiency{} // the ideal floor: zeros read as 1
		}
		d := Deployment{Model: m, GPU: g, TP: []int{1, 2, 4, 8}[i%4], Eff: e}
		var b Batch
		b.DecodeSeqs = rng.IntN(300)
		b.DecodeContext = float64(b.DecodeSeqs) * 3000 * rng.Float64()
		for range rng.IntN(3) {
			b.AddPrefill(1+rng.IntN(4000), rng.IntN(8000))
		}
		if b.Tokens() == 0 {
			continue
		}
		got := d.Step(b)
		bw, fl := e.fractions()
		ideal := d
		ideal.Eff = Efficiency{}
		floor := ideal.Step(b)
		memory := floor.Bytes * (1 / (g.BandwidthBytesPerS * bw))
		compute := floor.FLOPs * (1 / (g.PeakFLOPS.BF16 * fl))
		want := math.Max(memory, compute) + floor.CommTime + e.StepOverhead
		if got.Time != want || got.MemoryTime != memory || got.ComputeTime != compute || got.Overhead != e.StepOverhead {
			t.Fatalf("batch %+v, %+v: time %v (mem %v, comp %v), want %v (mem %v, comp %v)",
				b, e, got.Time, got.MemoryTime, got.ComputeTime, want, memory, compute)
		}
		p := e.profile()
		withProfile := d
		withProfile.Profile = &p
		if pc := withProfile.Step(b); pc != got {
			t.Fatalf("Deployment.Profile = Eff.Profile() gives %+v, Eff gives %+v", pc, got)
		}
	}
}

// TestProfileTerms checks each term a Profile adds against its formula:
// the GEMM curve (at the step's tokens, and for the LM head at its
// sampled sequences), KV reads at the decode-attention efficiency, attention
// scores at the prefill efficiency, and the per-sequence and sampling
// overheads.
func TestProfileTerms(t *testing.T) {
	t.Parallel()
	m, _ := Model("qwen2.5-7b")
	g, _ := GPU("h100-sxm")
	p := Profile{Bandwidth: 0.8, GEMM: gemmEfficiency{Max: 0.8, HalfTokens: 100},
		Attention:    attentionEfficiency{Prefill: 0.4, Decode: 0.5},
		StepOverhead: StepOverhead{Base: 1e-3, PerSeq: 50e-6}, SamplingPerVocab: 1e-11}
	d := Deployment{Model: m, GPU: g, TP: 1, Profile: &p}
	floor := Deployment{Model: m, GPU: g, TP: 1}
	var b Batch
	b.DecodeSeqs, b.DecodeContext = 64, 64*2000
	b.AddPrefill(1000, 3000)
	c, f := d.Step(b), floor.Step(b)
	tokens := float64(b.Tokens())
	seqs := float64(b.DecodeSeqs + b.PrefillSeqs)
	bw, peak := g.BandwidthBytesPerS, g.PeakFLOPS.BF16
	wantMem := f.WeightBytes/(bw*0.8) + f.KVReadBytes/(bw*0.5)
	// The LM head, 2·V·H FLOPs a sampled sequence, is a GEMM of as many
	// rows as sequences: at the curve's efficiency there.
	lmHead := 2 * float64(m.Vocab) * float64(m.Hidden) * seqs
	wantComp := (f.ProjFLOPs-lmHead)/(peak*0.8*tokens/(tokens+100)) + lmHead/(peak*0.8*seqs/(seqs+100)) + f.AttnFLOPs/(peak*0.4)
	wantOver := 1e-3 + 50e-6*seqs + 1e-11*float64(m.Vocab)*seqs
	for _, x := range []struct {
		name      string
		got, want float64
	}{{"memory", c.MemoryTime, wantMem}, {"compute", c.ComputeTime, wantComp}, {"overhead", c.Overhead, wantOver},
		{"time", c.Time, math.Max(wantMem, wantComp) + wantOver}} {
		if math.Abs(x.got-x.want) > 1e-12*x.want {
			t.Errorf("%s = %v, want %v", x.name, x.got, x.want)
		}
	}
	if got := p.GEMM.At(100); got != 0.4 {
		t.Errorf("GEMM.At(half_tokens) = %v, want max/2 = 0.4", got)
	}
	if got := d.FrontendOverhead(); got != 0 {
		t.Errorf("FrontendOverhead = %v, want 0", got)
	}
}

func TestProfileValidate(t *testing.T) {
	t.Parallel()
	good := Efficiency{}.profile()
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		edit  func(*Profile)
		field string
		value any
		limit string
	}{
		{"bandwidth", func(p *Profile) { p.Bandwidth = 1.2 }, "bandwidth", 1.2, "must be in [1e-06, 1]"},
		{"gemm max", func(p *Profile) { p.GEMM.Max = 0 }, "gemm.max", 0, "must be in [1e-06, 1]"},
		{"half", func(p *Profile) { p.GEMM.HalfTokens = -1 }, "gemm.half_tokens", -1, "must be a number from 0 to 1e+09 tokens"},
		{"decode", func(p *Profile) { p.Attention.Decode = math.NaN() }, "attention.decode", math.NaN(), "must be in [1e-06, 1]"},
		{"per seq", func(p *Profile) { p.StepOverhead.PerSeq = math.Inf(1) }, "step_overhead.per_seq_s", math.Inf(1), "must be a number from 0 to 60 s"},
		{"frontend", func(p *Profile) { p.FrontendOverhead = -1e-3 }, "frontend_overhead_s", -1e-3, "must be a number from 0 to 60 s"},
		// issue 30: values outside physical bounds gave runs of 1e300 s.
		{"bandwidth 1e-300", func(p *Profile) { p.Bandwidth = 1e-300 }, "bandwidth", 1e-300, "must be in [1e-06, 1]"},
		{"per layer 1e300", func(p *Profile) { p.StepOverhead.PerLayer = 1e300 }, "step_overhead.per_layer_s", 1e300, "must be a number from 0 to 60 s"},
		{"half tokens 1e300", func(p *Profile) { p.GEMM.HalfTokens = 1e300 }, "gemm.half_tokens", 1e300, "must be a number from 0 to 1e+09 tokens"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := good
			c.edit(&p)
			requireProblem(t, p.Validate(), c.field, c.value, c.limit)
		})
	}
	d := Deployment{Model: models["qwen2.5-7b"], GPU: gpus["h100-sxm"], TP: 1, Profile: &Profile{}}
	if err := d.Validate(); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("deployment with a zero profile: %v, want ErrInvalidSpec", err)
	}
}

func TestProfileYAMLRoundTrip(t *testing.T) {
	t.Parallel()
	p, err := embeddedProfile("h100-sxm")
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.MarshalYAMLBytes()
	if err != nil {
		t.Fatal(err)
	}
	back, err := readProfile(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if back != p {
		t.Errorf("round trip: %+v, want %+v", back, p)
	}
	if _, err := readProfile(bytes.NewReader([]byte("gpu: x\nbandwith: 0.8\n"))); !errors.Is(err, ErrInvalidSpec) {
		t.Errorf("unknown key: %v, want ErrInvalidSpec", err)
	}
}

// TestCatalogProfiles checks that every embedded profile loads, names its
// GPU and its sources, and that GPUs without one get the documented rule.
func TestCatalogProfiles(t *testing.T) {
	t.Parallel()
	names := profileNames()
	if len(names) == 0 {
		t.Fatal("no embedded profiles")
	}
	for _, n := range names {
		p, err := embeddedProfile(n)
		if err != nil {
			t.Fatal(err)
		}
		if p.GPU != n || p.Provenance.Source == "" || p.Provenance.Version == "" {
			t.Errorf("profile %s: gpu %q, provenance %+v", n, p.GPU, p.Provenance)
		}
		if _, err := GPU(n); err != nil {
			t.Errorf("profile %s names no catalog GPU: %v", n, err)
		}
	}
	if _, err := embeddedProfile("nope"); !errors.Is(err, ErrUnknownName) {
		t.Errorf("embeddedProfile(nope): %v, want ErrUnknownName", err)
	}
	h100, _ := embeddedProfile(referenceProfileGPU)
	// The H100 PCIe has no profile file (no per-operator data in aiconfigurator).
	pcie := gpus["h100-pcie"]
	rule := DefaultProfile(pcie)
	if rule.GPU != "h100-pcie" || rule.Bandwidth != h100.Bandwidth || rule.StepOverhead != h100.StepOverhead {
		t.Errorf("rule profile %+v does not carry the reference's fractions and overheads", rule)
	}
	if want := h100.SamplingPerVocab * 3.35e12 / 2e12; math.Abs(rule.SamplingPerVocab-want) > 1e-24 {
		t.Errorf("rule sampling %v, want %v (scaled by bandwidth)", rule.SamplingPerVocab, want)
	}
	if got := DefaultProfile(gpus["h100-sxm"]); got != h100 {
		t.Errorf("DefaultProfile(h100-sxm) = %+v, want the catalog file", got)
	}
}

// TestGEMMCurveCappedAtRidge: the GEMM curve's half_tokens of every
// catalog profile is at most its GPU's ridge at 16-bit weights, to the
// file's three digits (so the cap changes none of their predictions; the
// H20's file holds its ridge), and any catalog profile carried to
// any catalog GPU prices a one-token decode of a dense 16-bit model at no
// more compute time than the weights' streaming time plus one token's
// FLOPs at the ridge (1/T* of it) and its attention: the curve fitted on
// one GPU cannot make a batch-1 step compute-bound on a GPU of less
// compute per byte (the H20, whose ridge is 32 tokens against H100's 247).
func TestGEMMCurveCappedAtRidge(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "llama-3.1-8b")
	for _, name := range profileNames() {
		p, err := embeddedProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		g := gpus[name]
		if ridge := gemmRidge(2, g.PeakFLOPS.BF16, p.GEMM.Max, g.BandwidthBytesPerS, p.Bandwidth); p.GEMM.HalfTokens > 1.005*ridge {
			t.Errorf("%s: half_tokens %v against a ridge of %.1f tokens", name, p.GEMM.HalfTokens, ridge)
		}
		for _, gname := range GPUNames() {
			q := p
			q.GPU = gname
			on := gpus[gname]
			c := Deployment{Model: m, GPU: on, TP: 1, Profile: &q}.Step(Batch{DecodeSeqs: 1, DecodeContext: 512})
			r := gemmRidge(m.WeightBytes, on.PeakFLOPS.BF16, q.GEMM.Max, on.BandwidthBytesPerS, q.Bandwidth)
			weights := c.WeightBytes / (on.BandwidthBytesPerS * q.Bandwidth)
			if c.ComputeTime > 1.02*weights*(1+1/r) {
				t.Errorf("%s's profile on %s: compute %.3g s, weights stream in %.3g s", name, gname, c.ComputeTime, weights)
			}
		}
	}
}
