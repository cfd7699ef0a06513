package vllmbench

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// TestWritePDSummary: the summary of a 2P1D run names both pools and the
// link, counts every request, shows the SLO lines only when asked, ends
// with the serve lines given, and its TTFT split (queue, prefill,
// transfer, decode_first: the server's own per-part statistics) adds up
// to the mean TTFT of the client's sample, to the printed 0.01 ms.
func TestWritePDSummary(t *testing.T) {
	t.Parallel()
	m, err := cost.Model("llama-3.1-8b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	pre := batching.Defaults(m, g)
	pre.MaxModelLen = 8192
	pd, err := disagg.Spec{Prefill: 2, Decode: 1, DecodeGPU: "a100-80gb", Link: "rdma-roce-200g"}.Build(pre, batching.RoundRobin)
	require.NoError(t, err)
	res, err := sim.Run(sim.Config{Server: pd, Requests: 200, Seed: 5,
		Workload: workload.Workload{Arrivals: workload.Poisson{Rate: 10}, Lengths: workload.Fixed{Input: 2000, Output: 100}}})
	require.NoError(t, err)
	serve := []string{"vllm serve A", "python toy_proxy_server.py B"}
	for _, slo := range []bool{false, true} {
		var b bytes.Buffer
		require.NoError(t, WritePDSummary(&b, pd, res, slo, serve))
		out := b.String()
		for _, want := range []string{"Prefill pool:                            2 x h100-sxm TP 1\n",
			"Decode pool:                             1 x a100-80gb TP 1\n", "rdma-roce-200g (18 GB/s per rank, 0.4 ms)",
			"Successful requests:                     200       \n", Banner("vllm serve", '-') + "\nvllm serve A\npython toy_proxy_server.py B\n"} {
			assert.Contains(t, out, want)
		}
		assert.True(t, strings.HasSuffix(out, "python toy_proxy_server.py B\n"), "the serve lines end the summary")
		assert.Equal(t, slo, strings.Contains(out, "SLO attainment (%):"), "SLO lines when slo is %v", slo)
		var sum, ttft float64
		for _, line := range strings.Split(out, "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			switch f[0] {
			case "queue:", "prefill:", "transfer:", "decode_first:":
				sum += parseFloat(t, f[1])
			}
			if strings.HasPrefix(line, "Mean TTFT (ms):") {
				ttft = parseFloat(t, f[3])
			}
		}
		assert.Greater(t, ttft, 0.0)
		assert.InDelta(t, ttft, sum, 0.03)
	}
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	require.NoError(t, err, s)
	return v
}
