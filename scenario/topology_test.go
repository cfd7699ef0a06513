package scenario

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// topologyScenario is a 405B-class deployment on H100s at tp, with
// server.topology set to top ("" none).
func topologyScenario(t *testing.T, tp int, top string) *Scenario {
	t.Helper()
	s, err := parseTopology(tp, top)
	require.NoError(t, err)
	return s
}

func parseTopology(tp int, top string) (*Scenario, error) {
	y := fmt.Sprintf("requests: 40\nseed: 3\nworkload: {arrival: {rate: 4}, lengths: {input: 512, output: 64}}\n"+
		"server: {model: llama-3.1-405b, gpu: h100-sxm, tensor_parallel_size: %d, quantization: fp8, max_model_len: 4096%s}\n", tp, map[bool]string{true: ", topology: " + top}[top != ""])
	return Parse([]byte(y), "t.yaml")
}

// TestTopologyAllReduce: with server.topology h100-ndr-xe9680, a TP-16
// decode step's all-reduce time is 2L all-reduces of T·H·2 bytes, each the
// intra-node phase (the H100's NCCL table at 8 ranks) plus the inter-node
// phase computed here from the catalog's fitted numbers, α + 2(n−1)/n ·
// (S/g)/B with n = 2 nodes and g = 8 GPUs a node (α 16.41 µs, B 53.78
// GB/s, NVIDIA/nccl-tests#309).
func TestTopologyAllReduce(t *testing.T) {
	t.Parallel()
	eng, err := topologyScenario(t, 16, "h100-ndr-xe9680").Engine()
	require.NoError(t, err)
	d := eng.Deployment
	require.NotNil(t, d.Comm)
	sm, err := d.Compile()
	require.NoError(t, err)
	const seqs = 64
	got := sm.Step(cost.DecodeBatch(seqs, 1024)).CommTime

	const alpha, busBW, nodes, perNode = 16.41e-6, 53.78e9, 2, 8
	payload := float64(seqs * d.Model.Hidden * 2) // bf16 activations
	inter := alpha + 2*float64(nodes-1)/nodes*(payload/perNode)/busBW
	intra := d.GPU.AllReduce.Time(payload, perNode)
	want := float64(2*d.Model.Layers) * (intra + inter)
	assert.InEpsilon(t, want, got, 1e-12, "TP 16 all-reduce time per step")
	assert.Greater(t, inter, intra/10, "the inter-node phase is a real share of the step's all-reduce")
}

// TestTopologyWithinNode: at TP 8 the layout's one node keeps the GPU's own
// all-reduce, so a run is byte-identical to one without server.topology.
func TestTopologyWithinNode(t *testing.T) {
	t.Parallel()
	run := func(top string) string {
		cfg, err := topologyScenario(t, 8, top).Config()
		require.NoError(t, err)
		res, err := sim.Run(cfg)
		require.NoError(t, err)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		return string(b)
	}
	with, without := run("h100-ndr-xe9680"), run("")
	assert.Equal(t, without, with)
	assert.Contains(t, with, `"completed":40`)
}

// TestTopologyErrors: each bad topology is a field error naming the field,
// the value and the limit.
func TestTopologyErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		tp   int
		top  string
		want string
	}{
		{"unknown", 16, "ib-ndr", `server.topology: "ib-ndr" cost: unknown topology "ib-ndr": the catalog has a100-dgx-vidur, a100-oci-roce, h100-a3mega-tcpxo, h100-ndr-xe9680`},
		{"another gpu", 8, "a100-oci-roce", "measured on a100-40gb, not h100-sxm: use the GPU it measured, or a topology of h100-sxm (2 in the catalog: h100-a3mega-tcpxo, h100-ndr-xe9680), or none"},
		{"beyond the nodes measured", 32, "h100-ndr-xe9680", "tensor_parallel_size 32 exceeds 16, the 2 nodes × 8 GPUs topology \"h100-ndr-xe9680\" measured"},
		{"not whole nodes", 12, "h100-ndr-xe9680", "tensor_parallel_size 12 is not whole nodes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseTopology(tc.tp, tc.top)
			require.Error(t, err)
			assert.Contains(t, err.Error(), "server.topology")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
