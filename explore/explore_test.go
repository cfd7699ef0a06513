package explore

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// TestValidate checks that every bad field is an error naming the field.
func TestValidate(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		field string
		edit  func(*Request)
	}{
		{"model", func(r *Request) { r.Model = "gpt-5" }},
		{"Qwen/Qwen3-8B", func(r *Request) { r.Model = "qwen/qwen3-8b" }}, // the error names the registry's spelling
		{"gpu", func(r *Request) { r.GPU = "tpu" }},
		{"tp", func(r *Request) { r.TP = 0 }},
		{"replicas", func(r *Request) { r.Replicas = 65 }},
		{"max_num_seqs", func(r *Request) { r.MaxNumSeqs = -1 }},
		{"loop", func(r *Request) { r.Loop = "half" }},
		{"rate", func(r *Request) { r.Rate = math.Inf(1) }},
		{"rate", func(r *Request) { r.Rate = math.NaN() }},
		{"clients", func(r *Request) { r.Clients = 0 }},
		{"burstiness", func(r *Request) { r.Burstiness = 0 }},
		{"input_len", func(r *Request) { r.InputLen = 0 }},
		{"range_ratio", func(r *Request) { r.RangeRatio = 1 }},
		{"dataset", func(r *Request) { r.Dataset = "philschmid/mt-bench" }}, // vLLM knows it; no lengths are published
		{"dataset", func(r *Request) { r.Dataset = "" }},
		{"prompts", func(r *Request) { r.Prompts = MaxPrompts + 1 }},
		{"warmups", func(r *Request) { r.Warmups = r.Prompts }},
		{"ttft_ms", func(r *Request) { r.TTFT = -1 }},
		{"no SLO bound", func(r *Request) { r.TTFT, r.TPOT, r.E2EL = 0, 0, 0 }},
		{"target", func(r *Request) { r.Target = 1.5 }},
		{"seed", func(r *Request) { r.Seed = MaxSeed + 1 }},
		{"replications", func(r *Request) { r.Replications = 0 }},
		{"boundary_replications", func(r *Request) { r.BoundaryReplications = 0 }},
		{"precision", func(r *Request) { r.Precision = 0 }},
		{"plan_rate", func(r *Request) { r.PlanRate = -2 }},
		{"plan_gpus", func(r *Request) { r.PlanGPUs = nil }},
		{"plan_gpus", func(r *Request) { r.PlanGPUs = []string{"h100-sxm,l40s"} }},
	} {
		r := Default()
		c.edit(&r)
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v, want an error naming it", c.field, err)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("the default request: %v", err)
	}
}

// TestCall checks the JS interface's errors and a round trip of the
// request through JSON.
func TestCall(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ fn, req, args, want string }{
		{"nope", "{}", "", "unknown function"},
		{"bench", `{"tp": 3, "model": "llama-3.1-70b"}`, `{"rate": 1}`, ""},
		{"bench", `{"gpu_count": 1}`, "", "gpu_count"},
		{"bench", "{}", `{"rate": -1}`, "rate: -1"},
		{"bench", "{}", `{"clients": 100000}`, "clients: 100000"},
		{"bench", "{}", `{"speed": 1}`, "speed"},
		{"sweep_rates", "{}", `{"lower": 1, "n": 1000}`, "n: 1000"},
		{"search", strings.Repeat(" ", maxCallBytes+1), "", "exceed"},
	} {
		_, err := Call(c.fn, []byte(c.req), []byte(c.args), nil)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s %s %s: no error", c.fn, c.req, c.args)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s %s %s: %v, want an error with %q", c.fn, c.req, c.args, err, c.want)
		}
	}
	out, err := Call("catalog", nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var cat Catalog
	if err := json.Unmarshal(out, &cat); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cat.Default)
	back, err := Parse(b)
	if err != nil || back.Model != Default().Model || len(back.PlanGPUs) != len(Default().PlanGPUs) {
		t.Errorf("the default through JSON: %+v, %v", back, err)
	}
	if len(cat.Palette) != 8 || cat.Palette[0] != "#0072b2" {
		t.Errorf("palette %v, want report/chart's Okabe–Ito", cat.Palette)
	}
	if cat.SweepPoints != SweepPoints {
		t.Errorf("sweep_points %d, want SweepPoints, %d", cat.SweepPoints, SweepPoints)
	}
}

// TestClosedCapacity checks the closed-loop figure on hand-made points:
// the largest passing throughput, and the smallest failing one above it.
func TestClosedCapacity(t *testing.T) {
	t.Parallel()
	pts := []Point{
		{Clients: 1, Throughput: 2, Attainment: 1},
		{Clients: 2, Throughput: 4, Attainment: 1},
		{Clients: 4, Throughput: 7, Attainment: 0.995},
		{Clients: 8, Throughput: 9, Attainment: 0.9},
		{Clients: 16, Throughput: 8.5, Attainment: 0.5},
		{Clients: 32, Throughput: 10, Attainment: 1, Failed: 3},
	}
	lo, hi := ClosedCapacity(0.99, pts)
	if lo != 7 || hi == nil || *hi != 8.5 {
		t.Errorf("ClosedCapacity = %v, %v; want 7, 8.5", lo, hi)
	}
	lo, hi = ClosedCapacity(0.99, pts[:3])
	if lo != 7 || hi != nil {
		t.Errorf("all passing: %v, %v; want 7, none", lo, hi)
	}
}

// TestSweepRates checks the rates span a fifth to 1.5 times lambda*,
// increasing.
func TestSweepRates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lo, hi, mid float64 }{{10, 12, 11}, {0, 8, 8}, {5, math.Inf(1), 5}} {
		rs := SweepRates(c.lo, c.hi, 8)
		if len(rs) != 8 || math.Abs(rs[0]-0.2*c.mid) > 1e-3 || math.Abs(rs[7]-1.5*c.mid) > 1e-3 {
			t.Errorf("SweepRates(%v, %v) = %v", c.lo, c.hi, rs)
		}
		for i := 1; i < len(rs); i++ {
			if rs[i] <= rs[i-1] {
				t.Errorf("SweepRates(%v, %v) not increasing: %v", c.lo, c.hi, rs)
			}
		}
	}
	if rs := SweepRates(0, math.Inf(1), 8); rs != nil {
		t.Errorf("no bracket: %v", rs)
	}
}
