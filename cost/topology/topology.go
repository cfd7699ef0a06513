package topology

import (
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/servesim/servesim/cost"
)

// Topology is a multi-node deployment layout of the catalog: nodes of
// GPUsPerNode GPUs of one type, joined inside a node by IntraLink and
// across nodes by InterLink, with the inter-node α–β of MultiNode fitted
// to a published NCCL all-reduce table measured on that layout
// (Fit). Comm returns the all-reduce to set as
// Deployment.Comm for tensor parallelism (or the MoE data-parallel
// exchange) across its nodes; data parallelism across nodes needs no
// collective (replicas are independent) and is the plan's replica count.
type Topology struct {
	// Name identifies the layout ("h100-a3mega-tcpxo").
	Name string `json:"name" yaml:"name"`
	// GPU is the catalog GPU the measurement ran on.
	GPU string `json:"gpu" yaml:"gpu"`
	// GPUsPerNode is the GPUs of one node (one NVLink domain).
	GPUsPerNode int `json:"gpus_per_node" yaml:"gpus_per_node"`
	// Nodes is the nodes the measurement spanned: the layout describes
	// tensor parallelism up to Nodes × GPUsPerNode GPUs (Comm).
	Nodes int `json:"nodes" yaml:"nodes"`
	// IntraLink and InterLink name the links inside and across nodes.
	IntraLink string `json:"intra_node_link" yaml:"intra_node_link"`
	InterLink string `json:"inter_node_link" yaml:"inter_node_link"`
	// Inter is the fitted inter-node phase: α seconds and the bus
	// bandwidth of one GPU's shard ring across the nodes, bytes/s. It is
	// an effective figure over the sizes fitted, not the NIC's line rate.
	Inter cost.AlphaBeta `json:"inter" yaml:"inter"`
	// FitBytes is the message-size range [lo, hi] the fit used, bytes.
	FitBytes [2]float64 `json:"fit_bytes" yaml:"fit_bytes"`
	// MaxError is the largest relative error of MultiNode against the
	// measured times over FitBytes (the tests check it).
	MaxError float64 `json:"max_relative_error" yaml:"max_relative_error"`
	// Source names the measurement.
	Source string `json:"source" yaml:"source"`
}

// Point is one measured all-reduce: Bytes of payload over Ranks GPUs
// (GPUsPerNode each node) in Seconds, as nccl-tests' all_reduce_perf
// prints a row (size, out-of-place time).
type Point struct {
	Ranks, GPUsPerNode int
	Bytes, Seconds     float64
}

// The topology catalog. Each entry's Inter is Fit over its
// measured table in [64 KiB, 64 MiB], the payloads of tensor-parallel
// all-reduces in serving (one layer's activations: tokens × hidden × 2
// bytes, 64 KiB for 4 decode tokens of an 8192-wide model, 32 MiB for a
// 2048-token prefill chunk):
//
//   - a100-dgx-vidur: DGX A100 nodes (8× A100, NVLink 3 + NVSwitch), two
//     nodes, 16 ranks: microsoft/vidur data/profiling/network/a100_dgx/
//     all_reduce.csv, the num_workers 16, devices_per_node 8 rows
//     (../shared/data/a100_dgx_all_reduce.csv; the file does not name the
//     inter-node network). Its effective inter-node figures are low (1.0
//     GB/s per GPU): NCCL's measured 16-rank times are 5–10× the 8-rank
//     ones over 1–64 MiB.
//   - h100-a3mega-tcpxo: Google Cloud A3 Mega nodes (8× H100 SXM, NVLink 4
//   - NVSwitch, 8× 200 Gb/s NICs under GPUDirect-TCPXO), two nodes, 16
//     ranks: an all_reduce_perf -b 8 -e 8G -f 2 -g 1 run published in
//     lessizzmore/create-a3mega-ztan-fork, file ztan-NCCL-test-result
//     (the points are in internode_test.go). Its busbw reaches 339 GB/s at
//     8 GiB, above the NICs' 200 GB/s per node: on two nodes NCCL runs its
//     tree algorithm, whose inter-node traffic is S per node, not ring's
//     2(n−1)/n·S per rank (NCCL's maintainers, NVIDIA/nccl-tests#196).
//     Inference payloads stay far below that regime.
//   - a100-oci-roce: Oracle Cloud BM.GPU4.8 nodes (8× A100-SXM4-40GB,
//     NVLink 3 + NVSwitch, RDMA over RoCE v2 through 16 mlx5 interfaces a
//     node), two nodes, 16 ranks: an all_reduce_perf -b 8 -e 8G -f 2 -g 1
//     run (NCCL 2.19.3) published in oracle-quickstart/oci-hpc-oke@1402938d
//     README.md (the points, 8 B to 8 GiB, are in internode_test.go). Its
//     16-rank times are within 10–50 µs of the catalog's 8-rank A100 ones up to 64
//     MiB: NCCL overlaps the inter-node traffic with the intra-node
//     phases, which MultiNode adds, so the fitted bandwidth (119 GB/s per
//     GPU) is far above the NICs' and stands for that overlap.
//   - h100-ndr-xe9680: Dell XE9680 HGX nodes (8× H100 SXM, NVLink 4 +
//     NVSwitch, one ConnectX-7 400 Gb/s NDR InfiniBand NIC per GPU), two
//     nodes, 16 ranks: an all_reduce_perf_mpi -b 8 -e 16g -f 2 -g 1 run
//     (NCCL 2.26.2, NVLink SHARP on) posted in NVIDIA/nccl-tests#309 (the
//     points, 8 B to 16 GiB, are in internode_test.go). Its fitted bus
//     bandwidth, 54 GB/s per GPU, is the NIC's ~50 GB/s; the worst point
//     (37%) is 512 KiB, measured slower than 1 MiB. Above 64 MiB NCCL's
//     NVLS tree beats the catalog's intra-node table, which MultiNode
//     uses, so the model overstates (87% at 8 GiB).
var topologies = map[string]Topology{
	"a100-dgx-vidur": {Name: "a100-dgx-vidur", GPU: "a100-80gb", GPUsPerNode: 8, Nodes: 2,
		IntraLink: "NVLink 3 + NVSwitch (DGX A100)", InterLink: "as profiled by Vidur (not named in the file)",
		Inter:    cost.AlphaBeta{Alpha: 168.2e-6, BusBandwidth: 1.098e9},
		FitBytes: [2]float64{64 << 10, 64 << 20}, MaxError: 1.30,
		Source: "microsoft/vidur data/profiling/network/a100_dgx/all_reduce.csv (MIT), 16 ranks, 8 per node"},
	"a100-oci-roce": {Name: "a100-oci-roce", GPU: "a100-40gb", GPUsPerNode: 8, Nodes: 2,
		IntraLink: "NVLink 3 + NVSwitch", InterLink: "RDMA over RoCE v2, 16 mlx5 interfaces per node (Oracle Cloud BM.GPU4.8 cluster network)",
		Inter:    cost.AlphaBeta{Alpha: 21.53e-6, BusBandwidth: 119.4e9},
		FitBytes: [2]float64{64 << 10, 64 << 20}, MaxError: 0.19,
		Source: "nccl-tests all_reduce_perf, 2 × 8 A100-SXM4-40GB, oracle-quickstart/oci-hpc-oke@1402938d README.md"},
	"h100-a3mega-tcpxo": {Name: "h100-a3mega-tcpxo", GPU: "h100-sxm", GPUsPerNode: 8, Nodes: 2,
		IntraLink: "NVLink 4 + NVSwitch", InterLink: "8× 200 Gb/s GPUDirect-TCPXO per node (Google Cloud A3 Mega)",
		Inter:    cost.AlphaBeta{Alpha: 145.4e-6, BusBandwidth: 6.969e9},
		FitBytes: [2]float64{64 << 10, 64 << 20}, MaxError: 0.43,
		Source: "nccl-tests all_reduce_perf, 2 × 8 H100, lessizzmore/create-a3mega-ztan-fork ztan-NCCL-test-result"},
	"h100-ndr-xe9680": {Name: "h100-ndr-xe9680", GPU: "h100-sxm", GPUsPerNode: 8, Nodes: 2,
		IntraLink: "NVLink 4 + NVSwitch (HGX H100)", InterLink: "8× 400 Gb/s NDR InfiniBand (ConnectX-7) per node",
		Inter:    cost.AlphaBeta{Alpha: 16.41e-6, BusBandwidth: 53.78e9},
		FitBytes: [2]float64{64 << 10, 64 << 20}, MaxError: 0.38,
		Source: "nccl-tests all_reduce_perf, 2 × 8 H100 (Dell XE9680), https://github.com/NVIDIA/nccl-tests/issues/309"},
}

// Names returns the catalog's topology names, sorted.
func Names() []string {
	out := make([]string, 0, len(topologies))
	for n := range topologies {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ByName returns the catalog topology called name
// (case-insensitive).
func ByName(name string) (Topology, error) {
	t, ok := topologies[strings.ToLower(name)]
	if !ok {
		return Topology{}, errorf(cost.ErrUnknownName, "unknown topology %q: the catalog has %s", name, strings.Join(Names(), ", "))
	}
	return t, nil
}

// MultiNode returns the topology's all-reduce for GPUs g: the GPU's own
// intra-node table (g.AllReduce) and the fitted inter-node phase. g must
// be the topology's GPU: another GPU's nodes were not measured.
func (t Topology) MultiNode(g cost.GPUSpec) (MultiNode, error) {
	if g.Name != t.GPU {
		return MultiNode{}, invalidf("topology %q was measured on %s, not %s: pick a topology of %s or give a MultiNode of your own", t.Name, t.GPU, g.Name, g.Name)
	}
	if len(g.AllReduce) == 0 {
		return MultiNode{}, invalidf("gpu %s has no intra-node all-reduce table for topology %q", g.Name, t.Name)
	}
	m := MultiNode{GPUsPerNode: t.GPUsPerNode, Intra: g.AllReduce, Inter: t.Inter}
	return m, m.Validate()
}

// Comm returns the all-reduce of tensor parallelism over tp GPUs g laid
// out on t: nil within one node (tp ≤ GPUsPerNode: the deployment keeps
// the GPU's own, vLLM's dispatch on its tables), MultiNode across nodes.
// tp must be ≥ 1 and, across nodes, whole nodes (a multiple of
// GPUsPerNode) no more than the Nodes measured; g must be the layout's GPU
// (MultiNode), even within one node, so the layout names the deployment's
// hardware.
func (t Topology) Comm(g cost.GPUSpec, tp int) (cost.AllReduce, error) {
	switch {
	case g.Name != t.GPU:
		var same []string
		for _, n := range Names() {
			if topologies[n].GPU == g.Name {
				same = append(same, n)
			}
		}
		return nil, invalidf("topology %q was measured on %s, not %s: use the GPU it measured, or a topology of %s (%d in the catalog: %s), or none", t.Name, t.GPU, g.Name, g.Name, len(same), strings.Join(same, ", "))
	case tp < 1:
		return nil, invalidf("tensor_parallel_size %d must be >= 1", tp)
	case tp <= t.GPUsPerNode:
		return nil, nil
	case tp > t.Nodes*t.GPUsPerNode:
		return nil, invalidf("tensor_parallel_size %d exceeds %d, the %d nodes × %d GPUs topology %q measured: use tensor_parallel_size <= %d (and data parallelism for more GPUs)", tp, t.Nodes*t.GPUsPerNode, t.Nodes, t.GPUsPerNode, t.Name, t.Nodes*t.GPUsPerNode)
	case tp%t.GPUsPerNode != 0:
		return nil, invalidf("tensor_parallel_size %d is not whole nodes of topology %q (%d GPUs a node): use a multiple of %d", tp, t.Name, t.GPUsPerNode, t.GPUsPerNode)
	}
	m, err := t.MultiNode(g)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Fit fits MultiNode's inter-node α–β to measured all-reduces
// over several nodes: for each point in [minBytes, maxBytes] (maxBytes ≤ 0:
// no upper limit) the time left after the intra-node phase,
// τ − intra(S, g), against the shard's ring bytes 2(n−1)/n·S/g, by least
// squares with weights 1/τ² (relative error), as cost fits its one-node α–β tables. Every point must span more than one node (Ranks > GPUsPerNode,
// GPUsPerNode ≥ 1) with the same GPUsPerNode. A negative α is clamped to
// 0 and the bandwidth refitted through the origin.
func Fit(points []Point, intra cost.AllReduce, minBytes, maxBytes float64) (cost.AlphaBeta, error) {
	var x, y, w []float64
	for i, p := range points {
		switch {
		case p.GPUsPerNode < 1 || p.Ranks <= p.GPUsPerNode || p.Ranks%p.GPUsPerNode != 0:
			return cost.AlphaBeta{}, invalidf("inter-node fit point %d: ranks %d over %d GPUs a node is not several whole nodes", i, p.Ranks, p.GPUsPerNode)
		case p.GPUsPerNode != points[0].GPUsPerNode:
			return cost.AlphaBeta{}, invalidf("inter-node fit point %d: %d GPUs a node, point 0 has %d: fit one layout at a time", i, p.GPUsPerNode, points[0].GPUsPerNode)
		case !positiveFinite(p.Bytes) || !positiveFinite(p.Seconds):
			return cost.AlphaBeta{}, invalidf("inter-node fit point %d: bytes %v and seconds %v must be finite numbers > 0", i, p.Bytes, p.Seconds)
		case p.Bytes < minBytes || (maxBytes > 0 && p.Bytes > maxBytes):
			continue
		}
		g := p.GPUsPerNode
		rest := p.Seconds
		if g > 1 {
			if intra == nil {
				return cost.AlphaBeta{}, invalidf("inter-node fit: %d GPUs a node need an intra-node all-reduce", g)
			}
			rest -= intra.Time(p.Bytes, g)
		}
		x = append(x, ringBytes(p.Bytes/float64(g), p.Ranks/g))
		y = append(y, rest)
		w = append(w, 1/(p.Seconds*p.Seconds))
	}
	if len(x) < 2 {
		return cost.AlphaBeta{}, errorf(ErrFit, "inter-node fit: %d points in [%v, %v] bytes, need >= 2", len(x), minBytes, maxBytes)
	}
	alpha, invB := stat.LinearRegression(x, y, w, false)
	if alpha < 0 {
		alpha = 0
		_, invB = stat.LinearRegression(x, y, w, true)
	}
	if !(invB > 0) || !positiveFinite(1/invB) {
		return cost.AlphaBeta{}, errorf(ErrFit, "inter-node fit: slope %v s/byte is not positive: the intra-node phase alone takes the measured time", invB)
	}
	return cost.AlphaBeta{Alpha: alpha, BusBandwidth: 1 / invB}, nil
}
