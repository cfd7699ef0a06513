package topology

import (
	"sort"
	"strings"

	"github.com/servesim/servesim/cost"
)

// Link is a point-to-point data path between two GPUs of different
// instances or pipeline stages, priced α–β: moving b bytes takes
//
//	Latency + b / Bandwidth
//
// seconds. Bandwidth is what one rank's transfer achieves (its own NIC or
// NVLink port), so a tensor-parallel instance moves its ranks' shards in
// parallel and a transfer's bytes are those of one rank. The catalog's
// figures and their sources are in docs/disaggregation.md#links.
type Link struct {
	// Name identifies the link in reports ("rdma-roce-200g").
	Name string `json:"name" yaml:"name"`
	// Bandwidth is the achieved bytes per second of one rank's transfer.
	Bandwidth float64 `json:"bandwidth_bytes_per_s" yaml:"bandwidth_bytes_per_s"`
	// Latency is the fixed cost of one transfer, seconds (connector
	// handshake, registration, completion notification).
	Latency float64 `json:"latency_s" yaml:"latency_s"`
}

// Time returns the seconds a transfer of bytes ≥ 0 takes on the link.
func (l Link) Time(bytes float64) float64 { return l.Latency + bytes/l.Bandwidth }

// Validate checks a finite Bandwidth > 0 and a finite Latency ≥ 0. Its
// error is a *fielderr.Error at bandwidth_bytes_per_s or latency_s, naming
// the link and matching cost.ErrInvalidSpec.
func (l Link) Validate() error {
	switch {
	case !positiveFinite(l.Bandwidth):
		return fieldErr("bandwidth_bytes_per_s", l.Bandwidth, "must be a finite number > 0 (link %q)", l.Name)
	case !nonNegativeFinite(l.Latency):
		return fieldErr("latency_s", l.Latency, "must be a finite number of seconds >= 0 (link %q)", l.Name)
	}
	return nil
}

// The link catalog (docs/disaggregation.md#links gives each figure's
// source):
//
//   - rdma-roce-200g: one 200 Gb/s RoCE NIC per GPU under GPUDirect RDMA,
//     α–β fitted to Mooncake's vLLM-v1 connector benchmark (1P1D, 8×200
//     Gb/s RoCE aggregated, 20 MB in 0.54 ms, 4.5 GB in 31.65 ms): 144 GB/s
//     and 0.40 ms over the eight NICs, 18 GB/s each.
//   - rdma-ib-400g: one 400 Gb/s InfiniBand/RoCE NIC per GPU: Mooncake's
//     transfer engine reaches 190 GB/s over 8×400 Gb/s, 23.75 GB/s each;
//     the same 0.40 ms connector latency.
//   - nvlink-h100: P and D in one NVLink 4 domain: 450 GB/s per direction
//     (NVIDIA's 900 GB/s bidirectional per H100 SXM), 10 µs per transfer.
//   - tcp: the connector over TCP on the same 8×400 Gb/s hosts: Mooncake's
//     ~41 GB/s per host, 5.1 GB/s per rank, with an assumed 1 ms latency.
var links = map[string]Link{
	"rdma-roce-200g": {Name: "rdma-roce-200g", Bandwidth: 18e9, Latency: 0.40e-3},
	"rdma-ib-400g":   {Name: "rdma-ib-400g", Bandwidth: 23.75e9, Latency: 0.40e-3},
	"nvlink-h100":    {Name: "nvlink-h100", Bandwidth: 450e9, Latency: 10e-6},
	"tcp":            {Name: "tcp", Bandwidth: 5.1e9, Latency: 1e-3},
}

// DefaultLinkName is the link a disaggregated deployment uses unless told
// otherwise: one 400 Gb/s RDMA NIC per GPU.
const DefaultLinkName = "rdma-ib-400g"

// LinkNames returns the catalog's link names, sorted.
func LinkNames() []string {
	out := make([]string, 0, len(links))
	for n := range links {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// LinkByName returns the catalog link called name (case-insensitive).
func LinkByName(name string) (Link, error) {
	l, ok := links[strings.ToLower(name)]
	if !ok {
		return Link{}, errorf(cost.ErrUnknownName, "unknown link %q: the catalog has %s", name, strings.Join(LinkNames(), ", "))
	}
	return l, nil
}
