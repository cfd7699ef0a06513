package cost

import (
	"math"
	"testing"
)

// TestDecodeStepIsStep: a DecodeStep prices a decode batch bit for bit as
// Step does (the time, bytes, FLOPs and communication time it returns),
// over every catalog model and GPU, TP 1 to 8, data and expert
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
	same := func(a, b []float64) bool {
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				return false
			}
		}
		return true
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
							tm, bytes, flops, comm := ds.Step(ctx)
							c := sm.Step(Batch{DecodeSeqs: seqs, DecodeContext: ctx})
							if got, want := []float64{tm, bytes, flops, comm}, []float64{c.Time, c.Bytes, c.FLOPs, c.CommTime}; !same(got, want) {
								t.Fatalf("%s on %s tp %d dp %d ep %d profile %d, %d seqs, context %v:\n decode %v\n step   %v (time, bytes, FLOPs, comm time)", model, gpu, par.tp, par.dp, par.ep, pi, seqs, ctx, got, want)
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
