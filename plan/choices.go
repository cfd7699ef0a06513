package plan

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
)

// Choices is a search space as a user names it: GPUs by catalog name,
// prices and efficiency profiles by GPU name, and the lists of the space.
// Space resolves it. An empty list keeps the default Space documents (TP
// excepted: Choices.TP empty means DefaultTP); GPUs empty means every GPU
// with a price.
type Choices struct {
	// GPUs are catalog names (cost.GPU); empty: every GPU with a price.
	GPUs []string
	// Prices are dollars per GPU-hour by GPU name, over DefaultPrices.
	Prices map[string]float64
	// Profiles are efficiency profiles by GPU name (each must be among
	// the GPUs searched); a GPU without one keeps its built-in rule.
	Profiles map[string]*cost.Profile
	// TP is the tensor-parallel degrees; empty: DefaultTP.
	TP                              []int
	DataParallel                    []int
	ExpertParallel, ChunkedPrefill  []bool
	MaxNumSeqs, MaxNumBatchedTokens []int
	// Precisions are the weight precisions searched: BF16 and FP8 (an
	// empty list: both).
	Precisions []cost.Precision
	// SpecK is Space.SpecK.
	SpecK []int
	// Disaggregated are the P/D configurations searched beside the
	// colocated ones (Space.Disaggregated).
	Disaggregated []PDShape
	// PipelineParallel are the --pipeline-parallel-size values searched
	// (Space.PipelineParallel).
	PipelineParallel []int
	// Topology, when set, names a multi-node layout of the catalog
	// (topology.ByName): its GPU (which must be among the GPUs
	// searched) takes TP degrees above one node's GPUs across its nodes
	// (GPUOption.Topology); the other GPUs keep one node.
	Topology string
}

// DefaultTP is the tensor-parallel degrees a plan searches by default.
var DefaultTP = []int{1, 2, 4, 8}

// ChoiceError is an error of one field of Choices: Field is the field's
// name as in Choices ("GPUs", "Prices", "Profiles", "TP", "Precisions"),
// so a caller can name its own flag or key for it.
type ChoiceError struct {
	Field string
	Err   error
}

func (e *ChoiceError) Error() string { return e.Field + ": " + e.Err.Error() }

// Unwrap returns ErrInvalid and the cause.
func (e *ChoiceError) Unwrap() []error { return []error{ErrInvalid, e.Err} }

func choiceErr(field, format string, args ...any) error {
	return &ChoiceError{Field: field, Err: fmt.Errorf(format, args...)}
}

// Space resolves the choices into a search space: each GPU from the
// catalog with its price and profile. It fails, with a *ChoiceError, on
// an unknown GPU, a GPU without a price, a negative price, a profile for
// a GPU not searched or of another GPU (cost.Profile.ForGPU), or a
// precision a plan does not search; Plan.Validate checks the rest.
func (c Choices) Space() (Space, error) {
	prices := DefaultPrices()
	for _, g := range slices.Sorted(maps.Keys(c.Prices)) {
		if p := c.Prices[g]; !(p >= 0) || math.IsInf(p, 1) {
			return Space{}, choiceErr("Prices", "%s=%v: a price must be a finite number of dollars an hour >= 0", g, p)
		}
		prices[g] = c.Prices[g]
	}
	names := c.GPUs
	if len(names) == 0 {
		names = prices.Names()
	}
	if len(names) == 0 {
		return Space{}, choiceErr("GPUs", "no GPU to search")
	}
	for _, g := range slices.Sorted(maps.Keys(c.Profiles)) {
		if !slices.Contains(names, g) {
			return Space{}, choiceErr("Profiles", "%s is not among the GPUs searched (%s)", g, strings.Join(names, ", "))
		}
		if p := c.Profiles[g]; p != nil {
			if err := p.ForGPU(g); err != nil {
				return Space{}, &ChoiceError{Field: "Profiles", Err: err}
			}
		}
	}
	var s Space
	for _, n := range names {
		g, err := cost.GPU(n)
		if err != nil {
			return Space{}, &ChoiceError{Field: "GPUs", Err: err}
		}
		price, ok := prices[n]
		if !ok {
			return Space{}, choiceErr("GPUs", "%s has no price: give it one (Prices)", n)
		}
		s.GPUs = append(s.GPUs, GPUOption{GPU: g, PricePerHour: price, Profile: c.Profiles[n]})
	}
	if c.Topology != "" {
		top, err := topology.ByName(c.Topology)
		if err != nil {
			return Space{}, &ChoiceError{Field: "Topology", Err: err}
		}
		i := slices.IndexFunc(s.GPUs, func(o GPUOption) bool { return o.GPU.Name == top.GPU })
		if i < 0 {
			return Space{}, choiceErr("Topology", "%s was measured on %s, not among the GPUs searched (%s): add %s to the GPUs", top.Name, top.GPU, strings.Join(names, ", "), top.GPU)
		}
		s.GPUs[i].Topology = &top
	}
	s.TP = slices.Clone(c.TP)
	if len(s.TP) == 0 {
		s.TP = slices.Clone(DefaultTP)
	}
	for _, p := range c.Precisions {
		if p != cost.BF16 && p != cost.FP8 {
			return Space{}, choiceErr("Precisions", "%q: a plan searches bf16 and fp8", p)
		}
	}
	s.Precisions = slices.Clone(c.Precisions)
	if len(s.Precisions) == 0 {
		s.Precisions = []cost.Precision{cost.BF16, cost.FP8}
	}
	s.DataParallel, s.ExpertParallel = slices.Clone(c.DataParallel), slices.Clone(c.ExpertParallel)
	s.MaxNumSeqs, s.MaxNumBatchedTokens = slices.Clone(c.MaxNumSeqs), slices.Clone(c.MaxNumBatchedTokens)
	s.ChunkedPrefill = slices.Clone(c.ChunkedPrefill)
	s.SpecK = slices.Clone(c.SpecK)
	s.Disaggregated = slices.Clone(c.Disaggregated)
	s.PipelineParallel = slices.Clone(c.PipelineParallel)
	return s, nil
}

// Over returns c with each list o sets (non-nil) in place of c's, and
// o's prices and profiles over c's: o is what the user gave last (a
// command line over a scenario's plan: block, say).
func (c Choices) Over(o Choices) Choices {
	over(&c.GPUs, o.GPUs)
	over(&c.TP, o.TP)
	over(&c.DataParallel, o.DataParallel)
	over(&c.ExpertParallel, o.ExpertParallel)
	over(&c.ChunkedPrefill, o.ChunkedPrefill)
	over(&c.MaxNumSeqs, o.MaxNumSeqs)
	over(&c.MaxNumBatchedTokens, o.MaxNumBatchedTokens)
	over(&c.Precisions, o.Precisions)
	over(&c.SpecK, o.SpecK)
	over(&c.Disaggregated, o.Disaggregated)
	over(&c.PipelineParallel, o.PipelineParallel)
	if o.Topology != "" {
		c.Topology = o.Topology
	}
	c.Prices = overMap(c.Prices, o.Prices)
	c.Profiles = overMap(c.Profiles, o.Profiles)
	return c
}

// over sets *dst to src when src is set.
func over[T any](dst *[]T, src []T) {
	if src != nil {
		*dst = src
	}
}

// overMap returns a copy of dst with src's entries over it (dst itself
// when src is empty).
func overMap[V any](dst, src map[string]V) map[string]V {
	if len(src) == 0 {
		return dst
	}
	out := make(map[string]V, len(dst)+len(src))
	maps.Copy(out, dst)
	maps.Copy(out, src)
	return out
}
