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

// TestDefaultResultName: vLLM's compute_result_filename, from the label
// (else --backend), the rate as Python prints it, the concurrency, a ramp
// and the model's last path element.
func TestDefaultResultName(t *testing.T) {
	t.Parallel()
	const date = "20260102-030405"
	tests := []struct {
		name string
		o    func(o *Options)
		want string
	}{
		{"defaults", func(o *Options) {}, "openai-infqps-llama-3.1-8b-" + date + ".json"},
		{"label and concurrency", func(o *Options) { o.MaxConcurrency, o.Label = 8, "x" }, "x-infqps-concurrency8-llama-3.1-8b-" + date + ".json"},
		{"hugging face id", func(o *Options) { o.Model, o.RequestRate, o.Backend = "meta-llama/Llama-3.1-8B-Instruct", 2.5, "vllm" },
			"vllm-2.5qps-Llama-3.1-8B-Instruct-" + date + ".json"},
		{"whole rate", func(o *Options) { o.RequestRate = 10 }, "openai-10.0qps-llama-3.1-8b-" + date + ".json"},
		{"ramp", func(o *Options) { o.RampStrategy, o.RampStart, o.RampEnd = "linear", 1, 10 },
			"openai-ramp-up-linear-1qps-10qps-llama-3.1-8b-" + date + ".json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Defaults(true)
			tt.o(&o)
			if got := defaultResultName(&o, date); got != tt.want {
				t.Errorf("%q, want %q", got, tt.want)
			}
		})
	}
}
