package screen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/servesim/servesim/batching"
)

// Candidate is one deployment: Replicas engines of TP GPUs each, or, with
// data parallelism, of TP·DP GPUs each, as `vllm serve` runs them.
type Candidate struct {
	TP int `json:"tp" yaml:"tp"`
	// DP is vLLM's --data-parallel-size (0 or 1: none). For a
	// mixture-of-experts model an engine is DP attention data-parallel
	// groups of TP GPUs that step together through the MoE layers
	// (batching.Config with Deployment.DP); for a dense model the DP
	// engines are independent, as DP times the replicas.
	DP int `json:"dp,omitempty" yaml:"dp,omitempty"`
	// EP is vLLM's --enable-expert-parallel: each MoE layer's routed
	// experts are split over all TP·DP GPUs of the engine (Deployment.EP =
	// TP·DP). Mixture-of-experts models only.
	EP       bool `json:"ep,omitempty" yaml:"ep,omitempty"`
	Replicas int  `json:"replicas" yaml:"replicas"`
}

// GPUs returns TP × DP × Replicas.
func (c Candidate) GPUs() int { return c.TP * max(c.DP, 1) * c.Replicas }

// String returns "TP=p xk", or "TP=p DP=d EP xk" with data or expert
// parallelism.
func (c Candidate) String() string {
	s := fmt.Sprintf("TP=%d", c.TP)
	if c.DP > 1 {
		s += fmt.Sprintf(" DP=%d", c.DP)
	}
	if c.EP {
		s += " EP"
	}
	return s + fmt.Sprintf(" x%d", c.Replicas)
}

// engine returns the candidate's engine and how many of them serve
// behind the router: a mixture-of-experts model's data-parallel groups
// are one engine, a dense model's are replicas.
func (c Candidate) engine(template batching.Config) (eng batching.Config, replicas int) {
	eng, replicas = template, c.Replicas
	eng.Deployment.TP = c.TP
	switch {
	case c.DP > 1 && eng.Deployment.Model.Experts > 0:
		eng.Deployment.DP = c.DP
	case c.DP > 1:
		replicas *= c.DP
	}
	if c.EP {
		eng.Deployment.EP = c.TP * max(eng.Deployment.DP, 1)
	}
	return eng, replicas
}

// MaxCandidateGPUs bounds a candidate's TP and its replicas as
// ParseCandidates reads them: a tensor-parallel group or a replica count
// beyond it is not a deployment to screen.
const MaxCandidateGPUs = 1024

var (
	replicasSpec = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+)x(\d+)$`) })
	parallelSpec = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^tp(\d+)(?:dp(\d+))?(ep)?(?:x(\d+))?$`) })
)

// ParseCandidates reads a comma-separated list of candidates, each
// either PxK (K replicas of TP=P) or vLLM's parallel sizes
// tpP[dpD][ep][xK] (TP=P, --data-parallel-size D,
// --enable-expert-parallel, K replicas; "tp4dp2ep" is one engine of 8
// GPUs). Spec writes a candidate back in this form.
func ParseCandidates(list string) ([]Candidate, error) {
	var out []Candidate
	for _, f := range strings.Split(list, ",") {
		c, err := parseCandidate(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// parseCandidate reads one field of ParseCandidates's list; its errors
// quote the field as given.
func parseCandidate(field string) (Candidate, error) {
	bad := func(why string) error {
		return fmt.Errorf("candidate %q %s (e.g. 4x1, 2x2, tp4dp2ep)", field, why)
	}
	f := strings.ToLower(strings.TrimSpace(field))
	num := func(s string, def int) (int, bool) {
		if s == "" {
			return def, true
		}
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 1 && n <= MaxCandidateGPUs
	}
	var tp, dp, reps string
	ep := false
	if m := replicasSpec().FindStringSubmatch(f); m != nil {
		tp, reps = m[1], m[2]
	} else if m := parallelSpec().FindStringSubmatch(f); m != nil {
		tp, dp, ep, reps = m[1], m[2], m[3] != "", m[4]
	} else {
		return Candidate{}, bad("is neither PxK nor tpP[dpD][ep][xK]")
	}
	c := Candidate{EP: ep}
	var ok bool
	if c.TP, ok = num(tp, 1); !ok {
		return c, bad(fmt.Sprintf("has tp %s outside [1, %d]", tp, MaxCandidateGPUs))
	}
	if c.Replicas, ok = num(reps, 1); !ok {
		return c, bad(fmt.Sprintf("has %s replicas, outside [1, %d]", reps, MaxCandidateGPUs))
	}
	if c.DP, ok = num(dp, 0); !ok || c.DP > batching.MaxDataParallel {
		return c, bad(fmt.Sprintf("has dp %s outside [1, %d]", dp, batching.MaxDataParallel))
	}
	if c.DP == 1 {
		c.DP = 0 // none, as Spec writes it
	}
	return c, nil
}

// Spec writes the candidate as ParseCandidates reads it: "4x1", or
// "tp4dp2ep" (with "x2" for replicas) when it has data or expert
// parallelism.
func (c Candidate) Spec() string {
	if c.DP <= 1 && !c.EP {
		return fmt.Sprintf("%dx%d", c.TP, c.Replicas)
	}
	s := fmt.Sprintf("tp%d", c.TP)
	if c.DP > 1 {
		s += fmt.Sprintf("dp%d", c.DP)
	}
	if c.EP {
		s += "ep"
	}
	if c.Replicas != 1 {
		s += fmt.Sprintf("x%d", c.Replicas)
	}
	return s
}
