package plan_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/plan"
	"github.com/servesim/servesim/sim/metrics"
	"github.com/servesim/servesim/workload"
)

func TestParsePDShapes(t *testing.T) {
	got, err := plan.ParsePDShapes("2P1D, 1p2d:h100-sxm/4:a100-80gb/*,3P1D:*/8:*/*")
	require.NoError(t, err)
	assert.Equal(t, []plan.PDShape{
		{Prefill: 2, Decode: 1},
		{Prefill: 1, Decode: 2, PrefillGPU: "h100-sxm", PrefillTP: 4, DecodeGPU: "a100-80gb"},
		{Prefill: 3, Decode: 1, PrefillTP: 8},
	}, got)
	assert.Equal(t, "1P2D:h100-sxm/4:a100-80gb/*", got[1].String())
	for _, tc := range []struct{ in, want string }{
		{"", "no P/D shape"},
		{"2P", "the ratio is not xPyD"},
		{"xP1D", `prefill count "X" is not a whole number`},
		{"0P1D", "must each be in [1, 16]"},
		{"1P17D", "must each be in [1, 16]"},
		{"1P1D:h100-sxm", "2 colon-separated parts"},
		{"1P1D:h100-sxm:a100-80gb/4", `pool "h100-sxm" is not GPU/TP`},
		{"1P1D:h100-sxm/0:a100-80gb/4", `tp "0" is not a whole number >= 1`},
	} {
		_, err := plan.ParsePDShapes(tc.in)
		require.Error(t, err, tc.in)
		assert.ErrorIs(t, err, plan.ErrInvalid)
		assert.Contains(t, err.Error(), tc.want, tc.in)
	}
}

// pdPlan is llama-3.1-70b at TP 4 on H100 and A100, 8192 max-model-len,
// bf16, a 95% SLO, with the given P/D shapes beside colocated.
func pdPlan(t *testing.T, lengths workload.Lengths, rate float64, slo metrics.SLO, shapes string) plan.Plan {
	t.Helper()
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	p := plan.NewPlan(m)
	p.MaxModelLen = 8192
	sh, err := plan.ParsePDShapes(shapes)
	require.NoError(t, err)
	sp, err := plan.Choices{GPUs: []string{"h100-sxm", "a100-80gb"}, TP: []int{4}, Precisions: []cost.Precision{cost.BF16},
		Disaggregated: sh}.Space()
	require.NoError(t, err)
	p.Space = sp
	p.Objective = plan.Objective{Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 1}, Lengths: lengths}, Rate: rate,
		Criteria: capacity.DefaultCriteria(slo, 0.95)}
	p.Search.Requests, p.Search.Warmup, p.Search.MaxReplicas = 200, 0, 8
	return p
}

// TestPDCandidates: each shape is one candidate per pool GPU × TP ×
// precision, after the colocated ones, priced per unit at each pool's
// own price (a 2P1D unit of H100 TP 4 prefill and A100 TP 4 decode is 8
// H100 at $0.001097 and 4 A100 at $0.000694 a second: $41.5872 an hour).
func TestPDCandidates(t *testing.T) {
	p := pdPlan(t, workload.Fixed{Input: 1000, Output: 100}, 1, metrics.SLO{TTFT: 1}, "2P1D:h100-sxm/4:a100-80gb/4,1P1D")
	cands, err := p.Candidates()
	require.NoError(t, err)
	require.Len(t, cands, 2+1+4) // colocated h100, a100; the named 2P1D; 1P1D over 2 × 2 GPUs
	pd := cands[2]
	require.NotNil(t, pd.Disagg)
	assert.Equal(t, "2P1D h100-sxm tp4 / a100-80gb tp4 bf16", pd.Name)
	assert.Equal(t, 12, pd.GPUs)
	assert.InDelta(t, 41.5872, pd.CostPerHour(1), 1e-9)
	assert.InDelta(t, 2*41.5872, pd.CostPerHour(2), 1e-9)
	assert.Equal(t, 2, pd.Disagg.PrefillInstances)
	assert.Equal(t, "a100-80gb", pd.Disagg.Decode.GPU)
	assert.Equal(t, topology.DefaultLinkName, pd.Disagg.Link)
	var names []string
	for _, c := range cands[3:] {
		names = append(names, c.Name)
	}
	assert.Equal(t, []string{"1P1D h100-sxm tp4 / h100-sxm tp4 bf16", "1P1D h100-sxm tp4 / a100-80gb tp4 bf16",
		"1P1D a100-80gb tp4 / h100-sxm tp4 bf16", "1P1D a100-80gb tp4 / a100-80gb tp4 bf16"}, names)

	bad := p
	bad.Space.Disaggregated = []plan.PDShape{{Prefill: 1, Decode: 1, DecodeGPU: "b200"}}
	_, err = bad.Candidates()
	require.ErrorIs(t, err, plan.ErrInvalid)
	assert.Contains(t, err.Error(), "disaggregated[0] 1P1D:*/*:b200/*: gpu b200 is not among the GPUs searched (h100-sxm, a100-80gb)")

	bad = p
	bad.Space.Disaggregated = []plan.PDShape{{Prefill: 16, Decode: 1}}
	bad.Search.MaxReplicas = 100
	_, err = bad.Candidates()
	require.ErrorIs(t, err, plan.ErrInvalid)
	assert.Contains(t, err.Error(), "disaggregated[0] 16P1D times max_replicas 100 make 1600 instances of one pool, more than 1024")
}

// TestPlanPD: with 6000-token prompts at 1.4 req/s (TTFT ≤ 2 s, TPOT ≤
// 40 ms) the plan's winner is one H100 prefill and one A100 decode
// instance, cheaper than two colocated H100 replicas; its commands are
// one vllm serve per instance with the NIXL connector and the proxy. With
// 300-token prompts and 1000-token answers at 3 req/s a colocated
// deployment wins. (docs/disaggregation.md runs both at 400 requests.)
func TestPlanPD(t *testing.T) {
	shapes := "1P1D:h100-sxm/4:a100-80gb/4,1P1D:h100-sxm/4:h100-sxm/4"
	heavy := pdPlan(t, workload.Random{InputLen: 6000, OutputLen: 200, RangeRatio: 0.2}, 1.4, metrics.SLO{TTFT: 2, TPOT: 0.04}, shapes)
	res, err := heavy.Run()
	require.NoError(t, err)
	require.Equal(t, 1, res.Winners)
	w := res.Best()[0]
	require.NotNil(t, w.Disagg, "winner %s", w.Name)
	assert.Equal(t, "1P1D h100-sxm tp4 / a100-80gb tp4 bf16", w.Name)
	assert.Equal(t, 1, w.Replicas)
	for _, r := range res.Ranked {
		if r.Disagg == nil {
			assert.Greater(t, r.CostPerHour, w.CostPerHour, r.Name)
		}
	}
	lines := strings.Split(w.Serve, "\n")
	require.Len(t, lines, 3)
	assert.Contains(t, lines[0], `--port 8100 --kv-transfer-config '{"kv_connector":"NixlConnector","kv_role":"kv_both"}'   # prefill 0, h100-sxm`)
	assert.Contains(t, lines[1], "--port 8200")
	assert.Contains(t, lines[1], "# decode 0, a100-80gb")
	assert.Equal(t, "  python toy_proxy_server.py --port 8000 --prefiller-hosts localhost --prefiller-ports 8100 --decoder-hosts localhost --decoder-ports 8200", lines[2])

	light := pdPlan(t, workload.Random{InputLen: 300, OutputLen: 1000, RangeRatio: 0.2}, 3, metrics.SLO{TTFT: 1.5, TPOT: 0.05}, shapes)
	res, err = light.Run()
	require.NoError(t, err)
	require.GreaterOrEqual(t, res.Winners, 1)
	assert.Nil(t, res.Best()[0].Disagg, "decode-heavy winner %s", res.Best()[0].Name)
}

// A P/D shape list as servesim plan --pd-options reads it.
func ExampleParsePDShapes() {
	shapes, err := plan.ParsePDShapes("2P1D,1P1D:h100-sxm/4:a100-80gb/*")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range shapes {
		fmt.Printf("%s: %d prefill, %d decode instances a unit; prefill gpu %q tp %d, decode gpu %q tp %d\n",
			s, s.Prefill, s.Decode, s.PrefillGPU, s.PrefillTP, s.DecodeGPU, s.DecodeTP)
	}
	// Output:
	// 2P1D: 2 prefill, 1 decode instances a unit; prefill gpu "" tp 0, decode gpu "" tp 0
	// 1P1D:h100-sxm/4:a100-80gb/*: 1 prefill, 1 decode instances a unit; prefill gpu "h100-sxm" tp 4, decode gpu "a100-80gb" tp 0
}
