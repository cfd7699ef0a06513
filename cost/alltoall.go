package cost

import (
	"fmt"
	"slices"
	"strings"

	"github.com/servesim/servesim/fielderr"
)

// AllToAll prices the MoE token exchange of an expert-parallel deployment
// as all-to-all kernels run it (vLLM's --all2all-backend deepep_*, pplx):
// per MoE layer a dispatch that sends each token's hidden state to the
// ranks of its k routed experts, and a combine that sends the experts'
// outputs back. Each phase of B bytes a rank sends (tokens × k × message
// bytes, the selections on its own rank included, as DeepEP counts them)
// over R ranks of GPUsPerNode a node costs, with uniform routing (a
// fraction (g−1)/R of the selections on the g−1 other GPUs of its node,
// (R−g)/R on other nodes):
//
//	τ = α_nv + B·(R−1)/R / β_nv                          R ≤ GPUsPerNode
//	τ = max(α_nv + B·(g−1)/R / β_nv, α_rdma + B·(R−g)/R / β_rdma)  otherwise
//
// the NVLink and RDMA parts overlapping (DeepEP sends both at once). Set
// it as Deployment.AllToAll; AllToAllByName gives the catalog's
// measured entries (docs/disaggregation.md#expert-parallelism-across-nodes).
type AllToAll struct {
	// Name identifies the entry.
	Name string `json:"name" yaml:"name"`
	// GPUsPerNode is the GPUs of one NVLink domain, ≥ 1.
	GPUsPerNode int `json:"gpus_per_node" yaml:"gpus_per_node"`
	// NVLink and RDMA are each phase's α–β within a node and across
	// nodes.
	NVLink a2aPhases `json:"nvlink" yaml:"nvlink"`
	RDMA   a2aPhases `json:"rdma" yaml:"rdma"`
	// FP8Dispatch sends the dispatch in FP8 with one float scale per 128
	// elements and 16 more bytes a token (DeepEP's low-latency message,
	// H + H/32 + 16 bytes); otherwise BF16 (2H). The combine is BF16 (2H
	// bytes a token).
	FP8Dispatch bool `json:"fp8_dispatch" yaml:"fp8_dispatch"`
	// Source names the measurement.
	Source string `json:"source,omitempty" yaml:"source,omitempty"`
}

// a2aPhases holds the dispatch's and the combine's α–β on one link.
type a2aPhases struct {
	Dispatch a2aLink `json:"dispatch" yaml:"dispatch"`
	Combine  a2aLink `json:"combine" yaml:"combine"`
}

// a2aLink is one phase's latency α in seconds and bandwidth β in bytes/s
// of the bytes a rank sends over the link.
type a2aLink struct {
	Alpha     float64 `json:"alpha_s" yaml:"alpha_s"`
	Bandwidth float64 `json:"bandwidth_bytes_per_s" yaml:"bandwidth_bytes_per_s"`
}

// time returns α + bytes/β.
func (l a2aLink) time(bytes float64) float64 { return l.Alpha + bytes/l.Bandwidth }

// phase returns τ of a phase of bytes per rank over ranks (see AllToAll).
func (a *AllToAll) phase(nv, rdma a2aLink, bytes float64, ranks int) float64 {
	if ranks <= 1 {
		return 0
	}
	r := float64(ranks)
	g := min(ranks, a.GPUsPerNode)
	intra := 0.0
	if g > 1 {
		intra = nv.time(bytes * float64(g-1) / r)
	}
	if ranks <= a.GPUsPerNode {
		return intra
	}
	return max(intra, rdma.time(bytes*float64(ranks-g)/r))
}

// dispatch returns the dispatch time of bytes per rank over ranks, s.
func (a *AllToAll) dispatch(bytes float64, ranks int) float64 {
	return a.phase(a.NVLink.Dispatch, a.RDMA.Dispatch, bytes, ranks)
}

// combine returns the combine time of bytes per rank over ranks, s.
func (a *AllToAll) combine(bytes float64, ranks int) float64 {
	return a.phase(a.NVLink.Combine, a.RDMA.Combine, bytes, ranks)
}

// messageBytes returns the dispatch's and the combine's bytes per token
// and routed expert for a hidden size h.
func (a *AllToAll) messageBytes(h float64) (dispatch, combine float64) {
	dispatch = 2 * h
	if a.FP8Dispatch {
		dispatch = h + h/128*4 + 16
	}
	return dispatch, 2 * h
}

// validate checks GPUsPerNode ≥ 1 and every α ≥ 0 and β > 0, finite.
func (a *AllToAll) validate() error {
	if a.GPUsPerNode < 1 {
		return invalidField("gpus_per_node", a.GPUsPerNode, "must be >= 1")
	}
	for _, l := range []struct {
		name string
		l    a2aLink
	}{{"nvlink.dispatch", a.NVLink.Dispatch}, {"nvlink.combine", a.NVLink.Combine}, {"rdma.dispatch", a.RDMA.Dispatch}, {"rdma.combine", a.RDMA.Combine}} {
		if !nonNegativeFinite(l.l.Alpha) {
			return invalidField(l.name+".alpha_s", l.l.Alpha, "must be a finite number >= 0")
		}
		if !positiveFinite(l.l.Bandwidth) {
			return invalidField(l.name+".bandwidth_bytes_per_s", l.l.Bandwidth, "must be a finite number > 0")
		}
	}
	return nil
}

// validateAllToAll checks that an all-to-all exchange has one to price:
// attention data parallelism (DP > 1, as vLLM uses its all2all kernels
// only then) with the experts split over every rank (EP = TP·DP).
func (d Deployment) validateAllToAll() error {
	a := d.AllToAll
	if a == nil {
		return nil
	}
	if ranks := max(d.TP, 1) * max(d.DP, 1); d.DP < 2 || d.EP != ranks {
		return invalidField("all_to_all", a.Name, "needs dp >= 2 and ep = tp×dp (vLLM's all2all kernels run under --data-parallel-size with --enable-expert-parallel); got tp %d, dp %d, ep %d", d.TP, d.DP, d.EP)
	}
	return fielderr.In("all_to_all", a.validate())
}

// The all-to-all catalog.
//
//   - deepep-h800-cx7: DeepEP's low-latency kernels on H800 (NVLink ~160
//     GB/s) with one CX7 400 Gb/s InfiniBand NIC per GPU, 8 GPUs a node,
//     128 tokens a rank, hidden 7168, top-8, FP8 dispatch, BF16 combine
//     (deepseek-ai/DeepEP@dd758caf docs/legacy.md, "Low-latency kernels
//     with pure RDMA": EP 8…256, dispatch 77…194 µs, combine 114…360 µs;
//     bytes as tests/test_low_latency.py counts them). RDMA: α–β by least
//     squares in relative error over EP 16…256 against the bytes that
//     cross nodes (worst 2.5% dispatch, 5.7% combine). The message bytes
//     are those DeepEP@92fe2dea tests/test_low_latency.py counts. NVLink: β the
//     normal kernels' intranode bottleneck bandwidth (153 GB/s dispatch,
//     158 combine, same page), α what EP 8's latency leaves.
var allToAlls = map[string]AllToAll{
	"deepep-h800-cx7": {Name: "deepep-h800-cx7", GPUsPerNode: 8, FP8Dispatch: true,
		NVLink: a2aPhases{Dispatch: a2aLink{Alpha: 33.62e-6, Bandwidth: 153e9}, Combine: a2aLink{Alpha: 32.70e-6, Bandwidth: 158e9}},
		RDMA:   a2aPhases{Dispatch: a2aLink{Alpha: 36.91e-6, Bandwidth: 47.29e9}, Combine: a2aLink{Alpha: 15.05e-6, Bandwidth: 41.36e9}},
		Source: "deepseek-ai/DeepEP@dd758caf451848bd150e1046af3d0a73e5fff38d docs/legacy.md (H800, CX7 400 Gb/s InfiniBand)"},
}

// AllToAllByName returns a copy of the catalog entry called name
// (case-insensitive).
func AllToAllByName(name string) (*AllToAll, error) {
	a, ok := allToAlls[strings.ToLower(name)]
	if !ok {
		names := make([]string, 0, len(allToAlls))
		for n := range allToAlls {
			names = append(names, n)
		}
		slices.Sort(names)
		return nil, &costError{kind: ErrUnknownName, msg: fmt.Sprintf("unknown all-to-all %q: the catalog has %s", name, strings.Join(names, ", "))}
	}
	return &a, nil
}

// a2aStep is an AllToAll compiled for one deployment's step model.
type a2aStep struct {
	a                 *AllToAll
	ranks             int
	perRank           float64 // tokens a rank dispatches per group token: 1/TP
	dispatch, combine float64 // bytes per token: message × k
}

// a2aStep returns d's compiled all-to-all, or nil without one.
func (d Deployment) a2aStep() *a2aStep {
	a := d.AllToAll
	if a == nil {
		return nil
	}
	tp := max(d.TP, 1)
	disp, comb := a.messageBytes(float64(d.Model.Hidden))
	k := float64(d.Model.ExpertsPerToken)
	return &a2aStep{a: a, ranks: tp * max(d.DP, 1), perRank: 1 / float64(tp), dispatch: disp * k, combine: comb * k}
}

// exchange adds calls MoE layers' dispatch and combine of a group's t
// tokens to c: each rank of the group sends t/TP tokens' messages, as
// vLLM's sequence-parallel MoE (use_sequence_parallel_moe) splits them;
// at TP 1, DeepEP's usual layout, every split agrees.
func (x *a2aStep) exchange(c *StepCost, calls, t float64) {
	tokens := t * x.perRank
	d, b := tokens*x.dispatch, tokens*x.combine
	c.CommBytes += calls * (d + b)
	c.CommTime += calls * (x.a.dispatch(d, x.ranks) + x.a.combine(b, x.ranks))
}
