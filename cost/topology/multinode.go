package topology

import "github.com/servesim/servesim/cost"

// MultiNode is an all-reduce over ranks spread across nodes of
// GPUsPerNode GPUs each, as NCCL runs it across nodes (vLLM's custom
// all-reduces are single-node only, so a multi-node TP group uses NCCL):
// inside each node a reduce-scatter, across the n nodes an all-reduce of
// each GPU's 1/g shard over its own NIC, inside each node an all-gather.
// With g = min(ranks, GPUsPerNode) and n = ⌈ranks/g⌉ nodes,
//
//	τ(S, p) = Intra(S, g) + Inter(S/g, n)
//
// seconds: the reduce-scatter and the all-gather together move what one
// intra-node all-reduce does, 2(g−1)/g·S per rank, priced by Intra (one
// call's α for both: a lower bound on the latency part); the inter-node
// phase is Inter's α–β ring over n ranks. Within one node (ranks ≤
// GPUsPerNode) it is Intra(S, p). Set it as Deployment.Comm to price
// tensor parallelism (or the MoE data-parallel exchange) across nodes;
// docs/disaggregation.md#multi-node gives published figures for Inter.
type MultiNode struct {
	// GPUsPerNode is the GPUs of one node (NVLink domain), ≥ 1.
	GPUsPerNode int `json:"gpus_per_node" yaml:"gpus_per_node"`
	// Intra times the intra-node phase: the GPU's NCCL α–β table
	// (cost.GPUSpec.AllReduce), or any cost.AllReduce.
	Intra cost.AllReduce `json:"-" yaml:"-"`
	// Inter is the inter-node all-reduce of one GPU's shard across the
	// nodes, each GPU over its own NIC: α and the bus bandwidth nccl-tests
	// reports for one GPU per node over InfiniBand or RoCE.
	Inter cost.AlphaBeta `json:"inter" yaml:"inter"`
}

// Time returns τ(S, p) (see MultiNode); 0 for ranks ≤ 1.
func (m MultiNode) Time(bytes float64, ranks int) float64 {
	if ranks <= 1 {
		return 0
	}
	g := min(ranks, m.GPUsPerNode)
	n := (ranks + g - 1) / g
	t := 0.0
	if g > 1 {
		t = m.Intra.Time(bytes, g)
	}
	return t + m.Inter.Time(bytes/float64(g), n)
}

// Validate checks GPUsPerNode ≥ 1, Intra set (when a node holds more than
// one GPU) and valid, and Inter. Its own errors are *fielderr.Errors at
// gpus_per_node, intra, inter.alpha_s or inter.bus_bandwidth_bytes_per_s,
// matching cost.ErrInvalidSpec; Intra's are its own.
func (m MultiNode) Validate() error {
	switch {
	case m.GPUsPerNode < 1:
		return fieldErr("gpus_per_node", m.GPUsPerNode, "must be >= 1 (multi-node all-reduce)")
	case m.GPUsPerNode > 1 && m.Intra == nil:
		return fieldErr("intra", nil, "is not set: a multi-node all-reduce with gpus_per_node %d needs an intra-node all-reduce (the GPU's all_reduce table)", m.GPUsPerNode)
	case !nonNegativeFinite(m.Inter.Alpha):
		return fieldErr("inter.alpha_s", m.Inter.Alpha, "must be a finite number >= 0 (multi-node all-reduce)")
	case !positiveFinite(m.Inter.BusBandwidth):
		return fieldErr("inter.bus_bandwidth_bytes_per_s", m.Inter.BusBandwidth, "must be a finite number > 0 (multi-node all-reduce)")
	}
	if v, ok := m.Intra.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}
