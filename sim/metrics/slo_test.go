package metrics_test

import (
	"errors"
	"math"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/sim/metrics"
)

// TestSLOValidateFieldErrors: a bad bound is a *fielderr.Error naming the
// bound and its value, matching metrics.ErrInvalidSLO.
func TestSLOValidateFieldErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		slo   metrics.SLO
		field string
		value any
		msg   string
	}{
		{"negative ttft", metrics.SLO{TTFT: -1}, "ttft", -1.0, "ttft: -1 must be a finite number of seconds >= 0"},
		{"NaN tpot", metrics.SLO{TTFT: 0.2, TPOT: math.NaN()}, "tpot", math.NaN(), "tpot: NaN must be a finite number of seconds >= 0"},
		{"infinite e2el", metrics.SLO{E2E: math.Inf(1)}, "e2el", math.Inf(1), "e2el: +Inf must be a finite number of seconds >= 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.slo.Validate()
			fe := fielderr.Of(err)
			if fe == nil {
				t.Fatalf("Validate() = %v, want a *fielderr.Error", err)
			}
			v, _ := fe.Value.(float64)
			want := tt.value.(float64)
			if fe.Field != tt.field || !(v == want || math.IsNaN(v) && math.IsNaN(want)) {
				t.Errorf("field %q value %#v, want %q %#v (%v)", fe.Field, fe.Value, tt.field, tt.value, err)
			}
			if err.Error() != tt.msg {
				t.Errorf("Validate() = %q, want %q", err, tt.msg)
			}
			if !errors.Is(err, metrics.ErrInvalidSLO) {
				t.Errorf("%v does not match ErrInvalidSLO", err)
			}
		})
	}
	if err := (metrics.SLO{TTFT: 0.2, TPOT: 0.05, E2E: 10}).Validate(); err != nil {
		t.Errorf("a good SLO: %v", err)
	}
}
