package plan

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
)

// TestTopologySpace: with a topology, TP 16 of its GPU spans two nodes
// over the layout's inter-node all-reduce and its `vllm serve` line says
// so (a Ray cluster of 2 nodes × 8); TP 8 keeps the GPU's own all-reduce
// and a one-node line; TP 12 (not whole nodes) and TP 32 (more nodes than
// measured) are unbuildable; a topology of a GPU not searched is a
// Topology choice error.
func TestTopologySpace(t *testing.T) {
	t.Parallel()
	s, err := Choices{GPUs: []string{"h100-sxm"}, TP: []int{8, 16}, Topology: "h100-ndr-xe9680"}.Space()
	if err != nil {
		t.Fatal(err)
	}
	g := s.GPUs[0]
	if g.Topology == nil || g.Topology.Name != "h100-ndr-xe9680" {
		t.Fatalf("topology %v, want h100-ndr-xe9680 on h100-sxm", g.Topology)
	}
	m, _ := cost.Model("llama-3.1-405b")
	p := Plan{Model: m, Engine: batching.Serve(m, g.GPU, batching.VLLMCurrent)}
	for _, tc := range []struct {
		tp        int
		multiNode bool
		line      string
	}{
		{8, false, "vllm serve llama-3.1-405b --tensor-parallel-size 8 "},
		{16, true, "--distributed-executor-backend ray # on the head node of a Ray cluster of 2 nodes × 8 GPUs"},
	} {
		r := p.engine(g, Settings{TP: tc.tp, Precision: cost.FP8, MaxNumSeqs: 64, MaxNumBatchedTokens: 8192, ChunkedPrefill: true})
		e, ok := r.(Engine)
		if !ok {
			t.Fatalf("tp %d: %v", tc.tp, r)
		}
		_, multi := e.Config.Deployment.Comm.(topology.MultiNode)
		if multi != tc.multiNode {
			t.Errorf("tp %d: comm %T, multi-node %v", tc.tp, e.Config.Deployment.Comm, tc.multiNode)
		}
		line := ServeCommand("llama-3.1-405b", e, 1)
		if !strings.Contains(line, tc.line) || !tc.multiNode && strings.Contains(line, "ray") {
			t.Errorf("tp %d: %s\nwant %q", tc.tp, line, tc.line)
		}
	}
	for _, tp := range []int{12, 32} {
		if r, ok := p.engine(g, Settings{TP: tp, Precision: cost.FP8}).(unbuildable); !ok || r.reason != Invalid {
			t.Errorf("tp %d on two nodes of 8: %v, want unbuildable", tp, r)
		}
	}
	_, err = Choices{GPUs: []string{"a100-80gb"}, Topology: "h100-ndr-xe9680"}.Space()
	if ce, ok := err.(*ChoiceError); !ok || ce.Field != "Topology" || !strings.Contains(err.Error(), "measured on h100-sxm, not among the GPUs searched (a100-80gb)") {
		t.Errorf("topology of a GPU not searched: %v", err)
	}
}
