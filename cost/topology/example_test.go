package topology_test

import (
	"fmt"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
)

// A tensor-parallel all-reduce of one decode step's activations (64
// sequences × 16384 hidden × 2 bytes, llama-3.1-405b) within one node of
// eight H100s and across two (TP 16) on the A3 Mega topology (measured
// there: 254 µs at 2 MiB, 16 ranks).
func ExampleTopology() {
	h100, _ := cost.GPU("h100-sxm")
	top, err := topology.ByName("h100-a3mega-tcpxo")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := top.Comm(h100, 16) // across two nodes: a cost.MultiNode
	if err != nil {
		fmt.Println(err)
		return
	}
	const payload = 64 * 16384 * 2 // bytes
	fmt.Printf("%s: %d GPUs a node, %s\n", top.Name, top.GPUsPerNode, top.InterLink)
	fmt.Printf("TP 8:  %.0f µs\n", m.Time(payload, 8)*1e6)
	fmt.Printf("TP 16: %.0f µs\n", m.Time(payload, 16)*1e6)
	// Output:
	// h100-a3mega-tcpxo: 8 GPUs a node, 8× 200 Gb/s GPUDirect-TCPXO per node (Google Cloud A3 Mega)
	// TP 8:  39 µs
	// TP 16: 222 µs
}
