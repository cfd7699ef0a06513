package disagg

import (
	"flag"
	"strings"

	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/internal/cliflag"
)

// Flags are servesim pd's own flags: the Spec beside the bench flags'
// prefill engine.
type Flags struct {
	prefill, decode int
	decodeGPU       string
	decodeTP        int
	link            string
	proxyMS         float64
}

// Define puts the flags on fs, with their defaults, and returns their
// help group.
func (p *Flags) Define(fs *flag.FlagSet) cliflag.Group {
	p.prefill, p.decode, p.link = 1, 1, topology.DefaultLinkName
	fs.Var(cliflag.Int{P: &p.prefill, Min: 1, Max: MaxInstances}, "prefill-instances", "prefill instances x")
	fs.Var(cliflag.Int{P: &p.decode, Min: 1, Max: MaxInstances}, "decode-instances", "decode instances y")
	fs.StringVar(&p.decodeGPU, "decode-gpu", "", "GPU of the decode instances (default: --gpu)")
	fs.Var(cliflag.Int{P: &p.decodeTP, Min: 0, Max: 1024}, "decode-tensor-parallel-size", "TP of the decode instances (0: --tensor-parallel-size)")
	fs.StringVar(&p.link, "kv-link", p.link, "the KV link, from the catalog: "+strings.Join(topology.LinkNames(), ", "))
	fs.Var(cliflag.NonNegativeFloat{P: &p.proxyMS, Zero: "none"}, "proxy-overhead-ms", "the proxy's added latency per request, ms")
	return cliflag.Group{Title: "pd flags", Names: []string{"prefill-instances", "decode-instances", "decode-gpu", "decode-tensor-parallel-size", "kv-link", "proxy-overhead-ms"}}
}

// Spec returns the deployment the flags name; given names the flags given
// (the prefill engine's --max-num-seqs and --max-num-batched-tokens, when
// given, are kept on the decode side).
func (p *Flags) Spec(given map[string]bool) Spec {
	return Spec{Prefill: p.prefill, Decode: p.decode, DecodeGPU: p.decodeGPU, DecodeTP: p.decodeTP,
		Link: p.link, ProxyOverhead: p.proxyMS / 1000,
		KeepMaxNumSeqs: given["max-num-seqs"], KeepMaxNumBatchedTokens: given["max-num-batched-tokens"]}
}
