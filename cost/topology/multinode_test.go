package topology

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
)

// ndr is one GPU's share of an inter-node NCCL all-reduce over a 400 Gb/s
// NIC, for the tests.
var ndr = cost.AlphaBeta{Alpha: 20e-6, BusBandwidth: 40e9}

func TestMultiNodeLimits(t *testing.T) {
	h100, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	intra := h100.AllReduce
	m := MultiNode{GPUsPerNode: 8, Intra: intra, Inter: ndr}
	require.NoError(t, m.Validate())
	const s = 16 << 20 // bytes
	// Inside one node it is the intra-node all-reduce.
	for _, p := range []int{2, 4, 8} {
		assert.Equal(t, intra.Time(s, p), m.Time(s, p), "p=%d", p)
	}
	assert.Equal(t, 0.0, m.Time(s, 1))
	// One GPU per node: a ring over the nodes, α + 2(n−1)/n·S/B.
	one := MultiNode{GPUsPerNode: 1, Inter: ndr}
	require.NoError(t, one.Validate())
	assert.InDelta(t, 20e-6+2*3.0/4*s/40e9, one.Time(s, 4), 1e-15)
	// A free intra-node phase leaves the shard's ring: two nodes move
	// S/8 each way once.
	free := MultiNode{GPUsPerNode: 8, Intra: cost.AlphaBeta{BusBandwidth: 1e300}, Inter: ndr}
	assert.InDelta(t, 20e-6+float64(s)/8/40e9, free.Time(s, 16), 1e-15)
	// Across nodes it costs more than inside one, less than a flat ring
	// over the NICs.
	flat := cost.AlphaBeta{Alpha: ndr.Alpha, BusBandwidth: ndr.BusBandwidth}
	assert.Greater(t, m.Time(s, 16), intra.Time(s, 8))
	assert.Less(t, m.Time(s, 16), flat.Time(s, 16))
}

// TestMultiNodeDeployment: llama-3.1-405b at TP 16 over two nodes of
// eight H100s compiles with the multi-node all-reduce, and its steps'
// communication is the all-reduces' time (2 per layer).
func TestMultiNodeDeployment(t *testing.T) {
	m, err := cost.Model("llama-3.1-405b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	mn := MultiNode{GPUsPerNode: 8, Intra: g.AllReduce, Inter: ndr}
	d := cost.Deployment{Model: m, GPU: g, TP: 16, Eff: cost.DefaultEfficiency(), Comm: mn}
	require.NoError(t, d.Validate())
	sm, err := d.Compile()
	require.NoError(t, err)
	for _, seqs := range []int{1, 64} {
		c := sm.Step(cost.DecodeBatch(seqs, 2000))
		payload := float64(seqs) * float64(m.Hidden) * m.ActBytes
		assert.InDelta(t, 2*float64(m.Layers)*mn.Time(payload, 16), c.CommTime, 1e-12, "seqs %d", seqs)
	}
}

func TestMultiNodeValidate(t *testing.T) {
	for _, tc := range []struct {
		m     MultiNode
		field string
		value any
		want  string
	}{
		{MultiNode{GPUsPerNode: 0, Inter: ndr}, "gpus_per_node", 0, "gpus_per_node: 0 must be >= 1 (multi-node all-reduce)"},
		{MultiNode{GPUsPerNode: 8, Inter: ndr}, "intra", nil, "intra: is not set: a multi-node all-reduce with gpus_per_node 8 needs an intra-node all-reduce"},
		{MultiNode{GPUsPerNode: 1, Inter: cost.AlphaBeta{Alpha: -1, BusBandwidth: 1}}, "inter.alpha_s", -1.0, "inter.alpha_s: -1 must be a finite number >= 0"},
		{MultiNode{GPUsPerNode: 1, Inter: cost.AlphaBeta{}}, "inter.bus_bandwidth_bytes_per_s", 0.0, "inter.bus_bandwidth_bytes_per_s: 0 must be a finite number > 0"},
	} {
		err := tc.m.Validate()
		fe := fielderr.Of(err)
		require.NotNil(t, fe, "Validate() = %v, want a *fielderr.Error", err)
		assert.Equal(t, tc.field, fe.Field)
		assert.Equal(t, tc.value, fe.Value)
		assert.ErrorIs(t, err, cost.ErrInvalidSpec)
		assert.Contains(t, err.Error(), tc.want)
	}
}
