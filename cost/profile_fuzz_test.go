package cost

import (
	"errors"
	"strings"
	"testing"
)

// FuzzReadProfile: any profile text is refused with ErrInvalidSpec or
// gives a profile within the physical bounds Validate states:
// efficiencies in [1e-6, 1], overheads in [0, 60] s (issue 30:
// per_layer_s 1e300 and bandwidth 1e-300 gave steps of 1e300 s).
func FuzzReadProfile(f *testing.F) {
	f.Add("gpu: h100-sxm\nbandwidth: 0.8\ngemm: {max: 0.7, half_tokens: 64}\nattention: {prefill: 0.5, decode: 0.6}\n")
	f.Add("gpu: h100-sxm\nbandwidth: 1e-300\ngemm: {max: 0.7}\nattention: {prefill: 0.5, decode: 0.6}\n")
	f.Add("bandwidth: 0.8\ngemm: {max: 0.7}\nattention: {prefill: 0.5, decode: 0.6}\nstep_overhead: {per_layer_s: 1e300}\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := readProfile(strings.NewReader(text))
		if err != nil {
			if !errors.Is(err, ErrInvalidSpec) {
				t.Fatalf("error %v does not match ErrInvalidSpec", err)
			}
			return
		}
		for _, v := range []float64{p.Bandwidth, p.GEMM.Max, p.Attention.Prefill, p.Attention.Decode} {
			if !(v >= 1e-6 && v <= 1) {
				t.Fatalf("accepted efficiency %v", v)
			}
		}
		for _, v := range []float64{p.StepOverhead.Base, p.StepOverhead.PerLayer, p.StepOverhead.PerSeq, p.FrontendOverhead} {
			if !(v >= 0 && v <= 60) {
				t.Fatalf("accepted overhead %v s", v)
			}
		}
	})
}
