package disagg

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
)

// A Spec is an xPyD deployment as servesim pd's flags give it: the pool
// sizes and the decode side's GPU, tensor parallelism and link by name.
// Build turns it into a Config around one prefill engine.
type Spec struct {
	// Prefill and Decode are the instance counts x and y.
	Prefill, Decode int
	// DecodeGPU is the decode instances' GPU, from the catalog ("": the
	// prefill engine's).
	DecodeGPU string
	// DecodeTP is the decode instances' tensor parallelism (0: the
	// prefill engine's).
	DecodeTP int
	// Link names the KV link in the catalog (topology.LinkNames).
	Link string
	// ProxyOverhead is the proxy's added latency per request, seconds.
	ProxyOverhead float64
	// KeepMaxNumSeqs and KeepMaxNumBatchedTokens keep the prefill engine's
	// limits on a DecodeGPU (they were given); otherwise the decode
	// instances get vLLM serve's defaults for their GPU
	// (batching.ServeDefaults), the token budget only with chunked
	// prefill.
	KeepMaxNumSeqs, KeepMaxNumBatchedTokens bool
}

// Build returns the deployment: Prefill instances of pre, Decode
// instances of pre moved to DecodeGPU and DecodeTP, behind router, the KV
// crossing Link. The errors name the flag (--decode-gpu, --kv-link) or
// are Validate's.
func (s Spec) Build(pre batching.Config, router batching.Router) (Config, error) {
	dec := pre
	if s.DecodeGPU != "" {
		g, err := cost.GPU(s.DecodeGPU)
		if err != nil {
			return Config{}, fmt.Errorf("--decode-gpu: %w", err)
		}
		prof := cost.DefaultProfile(g)
		dec.Deployment.GPU, dec.Deployment.Profile = g, &prof
		seqs, tokens := batching.ServeDefaults(g)
		if !s.KeepMaxNumSeqs {
			dec.MaxNumSeqs = seqs
		}
		if !s.KeepMaxNumBatchedTokens && dec.EnableChunkedPrefill {
			dec.MaxNumBatchedTokens = tokens
		}
	}
	if s.DecodeTP > 0 {
		dec.Deployment.TP = s.DecodeTP
	}
	link, err := topology.LinkByName(s.Link)
	if err != nil {
		return Config{}, fmt.Errorf("--kv-link: %w", err)
	}
	c := Config{Prefill: Pool{Engine: pre, Instances: s.Prefill}, Decode: Pool{Engine: dec, Instances: s.Decode},
		Router: router, Link: link, ProxyOverhead: s.ProxyOverhead}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}
