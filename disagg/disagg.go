// Package disagg simulates disaggregated prefill and decode (xPyD): x
// prefill instances and y decode instances, each a vLLM-style engine with
// its own GPU, tensor parallelism and scheduler limits, behind a proxy, as
// vLLM serves with its NIXL, P2P-NCCL or Mooncake KV connectors (and llm-d,
// Dynamo, SGLang's PD mode).
//
// A request passes the proxy (ProxyOverhead), is routed to a prefill
// instance, which computes its prompt's KV and hands it off without
// emitting a token (vLLM's proxy sends it there with max_tokens 1); its KV
// then crosses the Link to a decode instance — bytes = prompt tokens × KV
// bytes per token per rank, ranks in parallel — and the prefill instance
// holds its KV blocks until the transfer ends. The decode instance admits
// the request when its KV has arrived, recomputes the last prompt token to
// get the logits and emits every output token, the first included: the
// client's TTFT is queue + prefill + transfer + the decode instance's
// first step. See docs/disaggregation.md.
//
// Transfers contend for links: each prefill instance has one egress and
// each decode instance one ingress, and a transfer holds both for its
// α + bytes/β, first come first served (later transfers wait for both to
// be free).
package disagg

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/sim/event"
	"github.com/servesim/servesim/sim/metrics"
)

// ErrInvalid is matched (errors.Is) by every configuration error of the
// package, and by the engines' own (batching.ErrInvalid).
var ErrInvalid = errors.New("disagg: invalid config")

type configError struct{ err error }

func (e *configError) Error() string   { return e.err.Error() }
func (e *configError) Unwrap() []error { return []error{ErrInvalid, e.err} }

func invalidf(format string, args ...any) error {
	return &configError{fmt.Errorf("disagg: "+format, args...)}
}

// fieldErr returns an ErrInvalid *fielderr.Error rejecting field's value.
func fieldErr(field string, value any, limit string, args ...any) error {
	return errmark.With(ErrInvalid, fielderr.New(field, value, limit, args...))
}

// MaxInstances bounds each pool's instance count.
const MaxInstances = 1024

// Pool is one side of the deployment: Instances engines of one Config
// (Deployment.DP must be 1).
type Pool struct {
	Engine    batching.Config `json:"engine" yaml:"engine"`
	Instances int             `json:"instances" yaml:"instances"`
}

// Config is an xPyD deployment (a sim.ServerConfig).
type Config struct {
	Prefill Pool `json:"prefill" yaml:"prefill"`
	Decode  Pool `json:"decode" yaml:"decode"`
	// Router chooses the prefill instance of each request on arrival and
	// its decode instance when its prefill ends: batching's RoundRobin,
	// LeastOutstanding (a decode instance's load counts the transfers
	// heading to it) or PrefixAware (on the prefill pool; the decode pool
	// then balances prompt blocks held).
	Router batching.Router `json:"router" yaml:"router"`
	// PrefixWeight is PrefixAware's weight; 0 means
	// batching.DefaultPrefixWeight.
	PrefixWeight float64 `json:"prefix_weight,omitempty" yaml:"prefix_weight,omitempty"`
	// Link carries the KV from prefill to decode; the zero Link means the
	// catalog's topology.DefaultLinkName.
	Link topology.Link `json:"link,omitzero" yaml:"link,omitempty"`
	// ProxyOverhead is the proxy's added latency before a request reaches
	// its prefill instance, seconds.
	ProxyOverhead float64 `json:"proxy_overhead_s,omitempty" yaml:"proxy_overhead_s,omitempty"`
}

// link returns the KV link, its default filled in.
func (c Config) link() topology.Link {
	if c.Link == (topology.Link{}) {
		l, _ := topology.LinkByName(topology.DefaultLinkName)
		return l
	}
	return c.Link
}

// Validate checks both pools (1 to MaxInstances instances of a valid
// engine), that they serve one model (equal KV bytes per token: the KV
// must mean the same on both sides), the router, the link and the proxy
// overhead.
func (c Config) Validate() error {
	for _, p := range []struct {
		name string
		pool Pool
	}{{"prefill", c.Prefill}, {"decode", c.Decode}} {
		if p.pool.Instances < 1 || p.pool.Instances > MaxInstances {
			return fieldErr(p.name+".instances", p.pool.Instances, "must be in [1, %d]", MaxInstances)
		}
		if p.pool.Engine.Deployment.DP > 1 {
			return fieldErr(p.name+".engine.deployment.dp", p.pool.Engine.Deployment.DP, "must be 1 (add instances instead)")
		}
		if err := p.pool.Engine.Validate(); err != nil {
			return errmark.With(ErrInvalid, fielderr.In(p.name+".engine", err))
		}
	}
	pm, dm := c.Prefill.Engine.Deployment.Model, c.Decode.Engine.Deployment.Model
	if pm.KVBytesPerToken() != dm.KVBytesPerToken() {
		return invalidf("prefill model %q has %v KV bytes per token and decode model %q %v: both pools must serve the same model with the same kv_cache_dtype",
			pm.Name, pm.KVBytesPerToken(), dm.Name, dm.KVBytesPerToken())
	}
	switch c.Router {
	case batching.RoundRobin, batching.LeastOutstanding, batching.PrefixAware:
	default:
		return fieldErr("router", string(c.Router), "must be %q, %q or %q", batching.RoundRobin, batching.LeastOutstanding, batching.PrefixAware)
	}
	if !(c.PrefixWeight >= 0) || math.IsInf(c.PrefixWeight, 1) {
		return fieldErr("prefix_weight", c.PrefixWeight, "must be a finite number >= 0")
	}
	if err := c.link().Validate(); err != nil {
		return errmark.With(ErrInvalid, fielderr.In("link", err))
	}
	if !(c.ProxyOverhead >= 0) || math.IsInf(c.ProxyOverhead, 1) {
		return fieldErr("proxy_overhead_s", c.ProxyOverhead, "must be a finite number of seconds >= 0")
	}
	return nil
}

// GPUs returns every instance's GPUs.
func (c Config) GPUs() int {
	return c.Prefill.Instances*c.Prefill.Engine.GPUs() + c.Decode.Instances*c.Decode.Engine.GPUs()
}

// TransferBytes returns the bytes one rank moves for a prompt of tokens:
// tokens × the larger of the two sides' KV bytes per token per rank (a
// decode rank with a smaller TP receives more than a prefill rank sends).
// It is 0 for model-free engines (StepTime with KVBlocks).
func (c Config) TransferBytes(tokens int) float64 {
	return float64(tokens) * max(bytesPerTokenPerRank(c.Prefill.Engine), bytesPerTokenPerRank(c.Decode.Engine))
}

func bytesPerTokenPerRank(e batching.Config) float64 {
	if e.StepTime != nil {
		return 0
	}
	return e.Deployment.KVBytesPerTokenPerRank()
}

// TransferTime returns the seconds an isolated transfer of a prompt of
// tokens takes: Link.Latency + TransferBytes/Link.Bandwidth.
func (c Config) TransferTime(tokens int) float64 { return c.link().Time(c.TransferBytes(tokens)) }

// NewServer builds the instances for one run.
func (c Config) NewServer(env *sim.Env) (sim.Server, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	s := &server{cfg: c, env: env, link: c.link(), weight: c.PrefixWeight,
		egress: make([]float64, c.Prefill.Instances), ingress: make([]float64, c.Decode.Instances),
		inbound: make([]int, c.Decode.Instances), arrived: make(map[int]float64)}
	if s.weight == 0 {
		s.weight = batching.DefaultPrefixWeight
	}
	for _, name := range []string{"queue", "prefill", "transfer", "decode_first", "link_wait"} {
		s.split = append(s.split, part{name: name, s: metrics.NewSummarySample()})
	}
	s.onProxy = s.proxied
	s.onArrive = s.transferred
	for i := range c.Prefill.Instances {
		in, err := c.Prefill.Engine.NewInstance(env, "prefill"+strconv.Itoa(i), s.handoff(i), nil)
		if err != nil {
			return nil, err
		}
		s.prefill = append(s.prefill, in)
	}
	for j := range c.Decode.Instances {
		in, err := c.Decode.Engine.NewInstance(env, "decode"+strconv.Itoa(j), nil, s.first)
		if err != nil {
			return nil, err
		}
		s.decode = append(s.decode, in)
	}
	return s, nil
}

// part is one component of TTFT, seconds, over measured requests.
type part struct {
	name string
	s    *metrics.Sample
}

type transfer struct {
	h      *batching.Handed
	to     int
	end    float64
	linkQ  float64 // seconds waited for the links
	active bool
}

type server struct {
	cfg    Config
	env    *sim.Env
	link   topology.Link
	weight float64

	prefill, decode []*batching.Instance
	nextP, nextD    int

	proxyQ   event.Ring[*metrics.Request] // in the proxy (constant delay: FIFO)
	onProxy  event.Handler
	onArrive event.Handler

	egress, ingress []float64 // when each prefill egress / decode ingress is next free
	inbound         []int     // transfers heading to each decode instance
	xfers           []transfer
	freeX           []int

	arrived map[int]float64 // request ID → KV arrival, until its first token
	split   []part          // queue, prefill, transfer, decode_first, link_wait

	transfers   int
	bytes, busy float64 // per rank Σ bytes; Σ link time
}

// Arrive passes r through the proxy to a prefill instance.
func (s *server) Arrive(r *metrics.Request) {
	if o := s.cfg.ProxyOverhead; o > 0 {
		s.proxyQ.Push(r)
		s.env.Schedule(s.env.Now()+o, event.Normal, s.onProxy, 0)
		return
	}
	s.toPrefill(r)
}

func (s *server) proxied(int64) { s.toPrefill(s.proxyQ.Pop()) }

func (s *server) toPrefill(r *metrics.Request) {
	var i int
	switch s.cfg.Router {
	case batching.RoundRobin:
		i = s.nextP
		s.nextP = (i + 1) % len(s.prefill)
	case batching.LeastOutstanding:
		i = least(len(s.prefill), func(k int) float64 { return float64(s.prefill[k].Outstanding()) })
	default:
		k := len(s.prefill)
		blocks := s.prefill[0].PromptBlocks(r.Input)
		best, bestCost := -1, math.Inf(1)
		for n := range k {
			j := (s.nextP + n) % k
			p := s.prefill[j]
			c := s.weight*float64(blocks-p.CachedPrefix(r)) + float64(p.ActiveBlocks())
			if c < bestCost {
				best, bestCost = j, c
			}
		}
		s.nextP = (best + 1) % k
		i = best
	}
	s.prefill[i].Arrive(r)
}

// least returns the index of the smallest load, ties to the lowest.
func least(n int, load func(int) float64) int {
	i, best := 0, load(0)
	for j := 1; j < n; j++ {
		if l := load(j); l < best {
			i, best = j, l
		}
	}
	return i
}

// handoff returns prefill instance i's handoff: choose the decode
// instance and start the transfer.
func (s *server) handoff(i int) func(*batching.Handed) {
	return func(h *batching.Handed) {
		var j int
		switch s.cfg.Router {
		case batching.RoundRobin:
			j = s.nextD
			s.nextD = (j + 1) % len(s.decode)
		case batching.LeastOutstanding:
			j = least(len(s.decode), func(k int) float64 { return float64(s.decode[k].Outstanding() + s.inbound[k]) })
		default:
			j = least(len(s.decode), func(k int) float64 { return float64(s.decode[k].ActiveBlocks()) })
		}
		now := s.env.Now()
		d := s.link.Time(s.cfg.TransferBytes(h.Req.Input))
		start := max(now, s.egress[i], s.ingress[j])
		end := start + d
		s.egress[i], s.ingress[j] = end, end
		s.inbound[j]++
		s.transfers++
		s.bytes += s.cfg.TransferBytes(h.Req.Input)
		s.busy += d
		var k int
		if n := len(s.freeX); n > 0 {
			k = s.freeX[n-1]
			s.freeX = s.freeX[:n-1]
		} else {
			k = len(s.xfers)
			s.xfers = append(s.xfers, transfer{})
		}
		s.xfers[k] = transfer{h: h, to: j, end: end, linkQ: start - now, active: true}
		s.env.Schedule(end, event.Normal, s.onArrive, int64(k))
	}
}

// transferred ends transfer k: the prefill side frees the blocks, the
// decode side gets the request.
func (s *server) transferred(k int64) {
	x := s.xfers[k]
	s.xfers[k] = transfer{}
	s.freeX = append(s.freeX, int(k))
	r := x.h.Req
	now := s.env.Now()
	if !r.Warmup {
		s.split[0].s.Add(r.Start - r.Sent)
		s.split[1].s.Add(x.h.Prefilled - r.Start)
		s.split[2].s.Add(now - x.h.Prefilled)
		s.split[4].s.Add(x.linkQ)
		s.arrived[r.ID] = now
	}
	x.h.Release()
	s.inbound[x.to]--
	id, measured := r.ID, !r.Warmup
	if !s.decode[x.to].ArriveWithKV(r) && measured {
		delete(s.arrived, id) // rejected: no first token will come
	}
}

// first records a decode instance's first token of r.
func (s *server) first(r *metrics.Request) {
	if t, ok := s.arrived[r.ID]; ok {
		s.split[3].s.Add(s.env.Now() - t)
		delete(s.arrived, r.ID)
	}
}

// GPUs reports both pools' GPUs (sim.GPUCounter).
func (s *server) GPUs() int { return s.cfg.GPUs() }

// Series returns every instance's counters over time.
func (s *server) Series() []*metrics.Series {
	var out []*metrics.Series
	for _, in := range s.prefill {
		out = append(out, in.Series())
	}
	for _, in := range s.decode {
		out = append(out, in.Series())
	}
	return out
}

// Stats reports each pool's engine counters merged (prefixed prefill_ and
// decode_: busy_fraction is the pool's utilisation, mean_kv_cache_usage
// its KV use), the TTFT split (mean and p99 of queue — send to prefill
// admission, proxy and frontend included —, prefill, transfer, the decode
// instance's first step, and the part of the transfer spent waiting for a
// busy link, in ms, measured requests), and the link's totals.
func (s *server) Stats() []metrics.Stat {
	var out []metrics.Stat
	for _, p := range []struct {
		name string
		in   []*batching.Instance
	}{{"prefill_", s.prefill}, {"decode_", s.decode}} {
		lists := make([][]metrics.Stat, len(p.in))
		for i, in := range p.in {
			lists[i] = in.Stats()
		}
		merged, err := metrics.MergeStats(lists)
		if err != nil {
			panic("disagg: instances report different counters: " + err.Error())
		}
		for _, st := range merged {
			st.Name = p.name + st.Name
			out = append(out, st)
		}
		out = append(out, metrics.Stat{Name: p.name + "instances", Value: float64(len(p.in))})
	}
	for _, p := range s.split {
		mean, p99 := 0.0, 0.0
		if p.s.Count() > 0 {
			mean, p99 = p.s.Mean(), p.s.Percentile(99)
		}
		out = append(out,
			metrics.Stat{Name: "mean_ttft_" + p.name + "_ms", Merge: metrics.Mean, Value: 1000 * mean},
			metrics.Stat{Name: "p99_ttft_" + p.name + "_ms", Merge: metrics.Max, Value: 1000 * p99})
	}
	end := s.env.Now()
	util := 0.0
	if end > 0 {
		util = s.busy / (end * float64(len(s.prefill)))
	}
	return append(out,
		metrics.Stat{Name: "kv_transfers", Value: float64(s.transfers)},
		metrics.Stat{Name: "kv_transfer_bytes_per_rank", Value: s.bytes},
		metrics.Stat{Name: "kv_link_busy_fraction", Merge: metrics.Mean, Value: util})
}
