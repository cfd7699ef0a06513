package explore

import (
	"encoding/json"
	"testing"
)

// BenchmarkCallSetup times what each call does before it simulates: the
// request's parsing (with Validate), its scenario (one Scenario.GPU) and
// the run's sim.Config (Scenario.Config: the model and GPU resolved,
// each name first tried as a file with os.Stat). Natively these are
// microseconds; under GOOS=js GOARCH=wasm every os.Stat is a call out to
// JavaScript and back, tens of microseconds even where it fails at once
// (the browser's wasm_exec.js answers ENOSYS; there scenario makes no
// such call after its first, stat_js.go). Run it in Node with fs.stat
// answering ENOSYS to see the browser's case.
func BenchmarkCallSetup(b *testing.B) {
	r := modelChange()
	reqJSON, err := json.Marshal(r)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("parse", func(b *testing.B) {
		for b.Loop() {
			if _, err := Parse(reqJSON); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scenario", func(b *testing.B) {
		for b.Loop() {
			r.scenario(true, 10, 0)
		}
	})
	b.Run("scenario+config", func(b *testing.B) {
		for b.Loop() {
			if _, err := r.scenario(true, 10, 0).Config(); err != nil {
				b.Fatal(err)
			}
		}
	})
	sc := r.scenario(true, 10, 0)
	b.Run("scenario.GPU", func(b *testing.B) {
		for b.Loop() {
			if _, err := sc.GPU(); err != nil {
				b.Fatal(err)
			}
		}
	})
}
