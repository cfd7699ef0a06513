package metrics_test

import (
	"testing"

	"github.com/servesim/servesim/sim/metrics"
)

func TestSLOString(t *testing.T) {
	for _, tt := range []struct {
		slo  metrics.SLO
		want string
	}{
		{metrics.SLO{}, ""},
		{metrics.SLO{TTFT: 0.2}, "TTFT <= 200 ms"},
		{metrics.SLO{TTFT: 2, TPOT: 0.05, E2E: 30}, "TTFT <= 2000 ms, TPOT <= 50 ms, E2EL <= 30000 ms"},
		{metrics.SLO{TPOT: 0.0125}, "TPOT <= 12.5 ms"},
	} {
		if got := tt.slo.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.slo, got, tt.want)
		}
	}
}
