package vllmbench

import (
	"testing"

	"github.com/servesim/servesim/cost"
)

// TestWeightPrecision names the experts' precision when only they are
// quantized.
func TestWeightPrecision(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		model, want string
	}{{"gpt-oss-120b", "bf16, experts mxfp4"}, {"llama-3.1-8b", "2 bytes"}} {
		m, err := cost.Model(tt.model)
		if err != nil {
			t.Fatal(err)
		}
		if got := weightPrecision(m); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.model, got, tt.want)
		}
	}
	if got := weightPrecision(cost.ModelSpec{WeightBytes: 0.5}); got != "0.5 bytes" {
		t.Errorf("no GEMM precision: %q", got)
	}
}

func TestPyFloatAndBanner(t *testing.T) {
	t.Parallel()
	for x, want := range map[float64]string{20: "20.0", 2.5: "2.5", 0.25: "0.25", 1e6: "1000000.0"} {
		if got := PyFloat(x); got != want {
			t.Errorf("PyFloat(%v) = %q, want %q", x, got, want)
		}
	}
	if got := Banner(" Serving Benchmark Result ", '='); got != "============ Serving Benchmark Result ============" {
		t.Errorf("Banner = %q", got)
	}
	if got := Banner("Time per Output Token (excl. 1st token)", '-'); got != "-----Time per Output Token (excl. 1st token)------" {
		t.Errorf("Banner = %q", got)
	}
}
