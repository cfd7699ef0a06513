package cost

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPricing(t *testing.T) {
	t.Parallel()
	gpu := func(name string) GPUSpec {
		g, err := GPU(name)
		require.NoError(t, err)
		return g
	}
	user := DefaultProfile(gpu("h100-sxm"))
	user.GEMM.Max = 0.5
	user.Provenance = Provenance{Source: "servesim calibrate on run.json", FittedOn: "4 runs on h100-sxm", Version: "1"}
	for _, tc := range []struct {
		name    string
		p       Profile
		want    []string
		bands   int
		notWant string
	}{
		{"fitted", DefaultProfile(gpu("h100-sxm")), []string{"profile h100-sxm v7, fitted on 90 dense BF16 rows", "TPOT ±3.7%, TTFT ±13.4% (90 fitted rows, leave one TP degree out)", "TPOT ±31.4%"}, 4, "BORROWED"},
		{"transferred with figures", DefaultProfile(gpu("b200")), []string{"profile b200 v8, TRANSFERRED from h100-sxm", "TPOT ±8.1%, TTFT ±16.6% (623 held-out aiconfigurator rows)"}, 1, "none recorded"},
		{"transferred without", DefaultProfile(gpu("h200")), []string{"profile h200 v4, TRANSFERRED", "measured error: none recorded"}, 0, "±"},
		{"borrowed", DefaultProfile(gpu("h100-pcie")), []string{"profile h100-pcie v7, BORROWED from h100-sxm", "TPOT ±14.6%, TTFT ±20.4% (1 held-out RTX 4090 run under H100's numbers"}, 1, "fitted on"},
		{"datasheet, measured", DefaultProfile(gpu("rtx4090")), []string{"profile rtx4090 v1, DATASHEET profile by the GDDR memory-class rule with published GEMM and decode microbenchmarks", "TPOT ±3.0%, TTFT ±4.9% (1 held-out RTX 4090 run"}, 1, "BORROWED"},
		{"datasheet, GDDR", DefaultProfile(gpu("l4")), []string{"profile l4 v1, DATASHEET profile by the GDDR memory-class rule with published GEMM microbenchmarks;", "TPOT ±2.1%, TTFT ±7.2% (2 GDDR GPUs left out in turn", "TPOT ±16.9%, TTFT ±21.1% (1 held-out RTX 4090 run at the GDDR class's bandwidth"}, 2, "BORROWED"},
		{"datasheet, HBM", DefaultProfile(gpu("mi300x")), []string{"profile mi300x v1, DATASHEET profile by the HBM memory-class rule", "TPOT ±2.2%, TTFT ±8.3% (6 HBM GPUs left out in turn"}, 1, "BORROWED"},
		{"same chip", DefaultProfile(gpu("a100-40gb")), []string{"profile a100-40gb v4, BORROWED from a100-80gb", "(10 expected as on a100-80gb, same chip: held-out gpustack"}, 1, "h100"},
		// A changed catalog profile is no longer the one measured.
		{"user", user, []string{"profile h100-sxm v1, fitted on 4 runs on h100-sxm", "measured error: none recorded"}, 0, "±"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.p.Pricing()
			for _, w := range tc.want {
				assert.Contains(t, got, w)
			}
			assert.NotContains(t, got, tc.notWant)
			assert.Len(t, MeasuredError(tc.p), tc.bands)
		})
	}
	// Every figure of the table belongs to a catalog profile as it is now:
	// a version bump without new measurements drops them.
	for key := range measuredErrors {
		found := false
		for _, name := range profileNames() {
			p, err := embeddedProfile(name)
			require.NoError(t, err)
			found = found || key == p.GPU+" v"+p.Provenance.Version
		}
		assert.True(t, found, "measuredErrors[%q] names no catalog profile version", key)
	}
}

func ExampleProfile_Pricing() {
	g, _ := GPU("a100-80gb")
	fmt.Println(DefaultProfile(g).Pricing())
	// Output: profile a100-80gb v4, TRANSFERRED from h100-sxm by this GPU's per-operator timings; no serving run of it fitted: TPOT ±11.9%, TTFT ±16.9% (10 held-out gpustack vLLM 0.11 bursts, TP 1)
}
