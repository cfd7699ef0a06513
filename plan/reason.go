package plan

import "fmt"

// Reason says why a candidate was rejected. The zero value, NoReason,
// marks a candidate that was not rejected.
type Reason uint8

// Reasons, in the order the planner tests them.
const (
	// NoReason: the candidate was not rejected.
	NoReason Reason = iota
	// Invalid: the candidate is not a deployment vLLM would start: TP does
	// not divide the attention heads or the MLP, the precision does not
	// apply to the model, or the engine settings contradict each other
	// (chunked prefill off with max-num-batched-tokens < max-model-len).
	Invalid
	// DoesNotFit: the weights, the runtime reserve and the KV cache of one
	// longest request (max-model-len tokens) or of one step's token budget
	// do not fit the GPUs' memory.
	DoesNotFit
	// Unreachable: the SLO cannot be met at any rate: the roofline floor of
	// the latencies alone misses it, or the simulated replica misses it even
	// at the lowest rate searched.
	Unreachable
	// TooExpensive: a lower bound on the candidate's cost exceeds the
	// cheapest verified cost (or the budget), so it cannot win; it was not
	// simulated further.
	TooExpensive
	// TooManyReplicas: the target rate needs more than Search.MaxReplicas
	// replicas.
	TooManyReplicas
)

var reasonNames = [...]string{"", "invalid", "does-not-fit", "slo-unreachable", "too-expensive", "too-many-replicas"}

// String returns the reason's name: "invalid", "does-not-fit",
// "slo-unreachable", "too-expensive", "too-many-replicas", or "" for
// NoReason.
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// MarshalText writes String.
func (r Reason) MarshalText() ([]byte, error) {
	if int(r) >= len(reasonNames) {
		return nil, fmt.Errorf("plan: unknown reason %d", uint8(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads a name String writes.
func (r *Reason) UnmarshalText(b []byte) error {
	for i, n := range reasonNames {
		if n == string(b) {
			*r = Reason(i)
			return nil
		}
	}
	return fmt.Errorf("plan: unknown reason %q", b)
}
