package cost

import (
	"math"
	"testing"
)

// TestDecodeStepIsStep: a DecodeStep prices a decode batch bit for bit as
// Step does, over every catalog model and GPU, TP 1 to 8, data and expert
// parallelism, catalog and fitted profiles, sequence counts and contexts.
func TestDecodeStepIsStep(t *testing.T) {
	t.Parallel()
	profiles := []*Profile{nil}
	for _, name := range profileNames() {
		p, err := embeddedProfile(name)
		if err != nil {
			t.Fatal(err)
		}
		profiles = append(profiles, &p)
	}
	same := func(a, b StepCost) bool {
		fa := []float64{a.Time, a.MemoryTime, a.ComputeTime, a.CommTime, a.Overhead, a.Bytes, a.WeightBytes, a.KVReadBytes, a.KVWriteBytes, a.FLOPs, a.ProjFLOPs, a.AttnFLOPs, a.CommBytes, a.MBU, a.MFU}
		fb := []float64{b.Time, b.MemoryTime, b.ComputeTime, b.CommTime, b.Overhead, b.Bytes, b.WeightBytes, b.KVReadBytes, b.KVWriteBytes, b.FLOPs, b.ProjFLOPs, b.AttnFLOPs, b.CommBytes, b.MBU, b.MFU}
		for i := range fa {
			if math.Float64bits(fa[i]) != math.Float64bits(fb[i]) {
				return false
			}
		}
		return a.Tokens == b.Tokens && a.Bound == b.Bound
	}
	checked := 0
	for _, model := range ModelNames() {
		for _, gpu := range GPUNames() {
			for _, par := range []struct{ tp, dp, ep int }{{1, 0, 0}, {2, 0, 0}, {4, 0, 0}, {8, 0, 0}, {2, 2, 4}} {
				for pi, prof := range profiles {
					d := deployment(t, model, gpu, par.tp)
					d.DP, d.EP = par.dp, par.ep
					d.Profile = prof
					if pi == 0 {
						d.Eff = DefaultEfficiency()
					}
					sm, err := d.Compile()
					if err != nil {
						continue // not a valid deployment
					}
					for _, seqs := range []int{0, 1, 7, 64, 513} {
						ds := sm.Decode(seqs)
						for _, ctx := range []float64{0, 1, 100, 12345, 3e6, 1e9} {
							ctx *= float64(seqs)
							if got, want := ds.Step(ctx), sm.Step(Batch{DecodeSeqs: seqs, DecodeContext: ctx}); !same(got, want) {
								t.Fatalf("%s on %s tp %d dp %d ep %d profile %d, %d seqs, context %v:\n decode %+v\n step   %+v", model, gpu, par.tp, par.dp, par.ep, pi, seqs, ctx, got, want)
							}
							checked++
						}
					}
				}
			}
		}
	}
	t.Logf("%d cases", checked)
	if checked < 1000 {
		t.Fatalf("only %d cases compiled", checked)
	}
}
