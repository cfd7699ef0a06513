package chart

import (
	"math"
	"math/rand/v2"
	"testing"
)

// checkTicks asserts a range's tick invariants: at least MinTicks ticks,
// increasing, inside the range, with distinct labels, and the data inside
// the range.
func checkTicks(t *testing.T, r Range, data []float64) {
	t.Helper()
	if len(r.Ticks) < MinTicks {
		t.Errorf("range [%g, %g]: %d ticks %v, want at least %d", r.Min, r.Max, len(r.Ticks), r.Ticks, MinTicks)
	}
	labels := map[string]bool{}
	for i, tk := range r.Ticks {
		if labels[tk.Label] {
			t.Errorf("range [%g, %g]: label %q twice in %v", r.Min, r.Max, tk.Label, r.Ticks)
		}
		labels[tk.Label] = true
		if tk.Label == "" {
			t.Errorf("tick %g has no label", tk.Value)
		}
		if i > 0 && tk.Value <= r.Ticks[i-1].Value {
			t.Errorf("ticks not increasing: %v", r.Ticks)
		}
		if eps := 1e-9 * math.Max(1, math.Abs(r.Max-r.Min)); tk.Value < r.Min-eps || tk.Value > r.Max+eps {
			t.Errorf("tick %g outside the range [%g, %g]", tk.Value, r.Min, r.Max)
		}
	}
	if !(r.Max > r.Min) {
		t.Errorf("empty range [%g, %g]", r.Min, r.Max)
	}
	for _, v := range data {
		if v < r.Min || v > r.Max {
			t.Errorf("value %g outside the range [%g, %g]", v, r.Min, r.Max)
		}
	}
}

// TestSinglePointTicks: one value, on any scale, gets a padded range
// with at least three distinct tick labels around it (the closed-loop
// scenario's plot had one tick).
func TestSinglePointTicks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    float64
		axis Axis
	}{
		{"closed-loop throughput", 19.3, Axis{}},
		{"closed-loop p99 TTFT", 180, Axis{}},
		{"zero", 0, Axis{}},
		{"zero with Zero", 0, Axis{Zero: true}},
		{"tiny", 0.00123, Axis{}},
		{"negative", -5, Axis{}},
		{"large", 2547.2, Axis{}},
		{"very large", 3.2e6, Axis{}},
		{"with Zero", 7.5, Axis{Zero: true}},
		{"at the cap", 100, Axis{Cap: 100}},
		{"log", 42, Axis{Log: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRange(tt.axis, []float64{tt.v}, 5)
			checkTicks(t, r, []float64{tt.v})
		})
	}
}

func TestRangeCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		vs     []float64
		axis   Axis
		labels []string
	}{
		{"attainment under the cap", []float64{97.89, 99.94, 100, 100}, Axis{Cap: 100}, []string{"98.0", "98.5", "99.0", "99.5", "100.0"}},
		{"from zero", []float64{3, 41}, Axis{Zero: true}, []string{"0", "10", "20", "30", "40"}},
		{"thousands", []float64{0, 24000}, Axis{Zero: true}, []string{"0", "5k", "10k", "15k", "20k"}},
		{"log decades", []float64{1, 64}, Axis{Log: true}, []string{"1", "2", "5", "10", "20", "50"}},
		{"no data", nil, Axis{}, nil},
		{"NaN and Inf only", []float64{math.NaN(), math.Inf(1)}, Axis{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRange(tt.axis, tt.vs, 5)
			var finiteVs []float64
			for _, v := range tt.vs {
				if finite(v) {
					finiteVs = append(finiteVs, v)
				}
			}
			checkTicks(t, r, finiteVs)
			if tt.labels == nil {
				return
			}
			var got []string
			for _, tk := range r.Ticks {
				got = append(got, tk.Label)
			}
			if len(got) != len(tt.labels) {
				t.Fatalf("labels %q, want %q", got, tt.labels)
			}
			for i := range got {
				if got[i] != tt.labels[i] {
					t.Fatalf("labels %q, want %q", got, tt.labels)
				}
			}
		})
	}
}

// TestRangeProperty: for random data of any scale and spread, the tick
// invariants hold.
func TestRangeProperty(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 2000; i++ {
		scale := math.Pow(10, float64(rng.IntN(16)-8))
		n := 1 + rng.IntN(6)
		var vs []float64
		base := (rng.Float64() - 0.3) * scale * 100
		for j := 0; j < n; j++ {
			vs = append(vs, base+rng.Float64()*scale)
		}
		axis := Axis{Zero: rng.IntN(3) == 0, Log: rng.IntN(4) == 0}
		r := NewRange(axis, vs, 3+rng.IntN(6))
		var drawn []float64
		for _, v := range vs {
			if !r.Log || v > 0 {
				drawn = append(drawn, v)
			}
		}
		checkTicks(t, r, drawn)
		if t.Failed() {
			t.Fatalf("data %v, axis %+v", vs, axis)
		}
	}
}
