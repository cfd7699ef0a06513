package sim

import (
	"fmt"
	"slices"
)

// StopReason says why a run ended before its stop rule (every request
// injected and drained, or the horizon): its name in results, "" when it
// did not.
type StopReason string

// Stop reasons.
const (
	// StopNone: the run ended by its stop rule.
	StopNone StopReason = ""
	// StopMaxInSystem: the requests in the system reached
	// Config.MaxInSystem; the run is judged unstable.
	StopMaxInSystem StopReason = "max_in_system"
	// StopSLOMisses: Config.StopAfterMisses requests certainly missed the
	// SLO.
	StopSLOMisses StopReason = "slo_misses"
	// StopAbort: the server aborted the run (Env.Abort).
	StopAbort StopReason = "abort"
)

// UnmarshalText reads a reason's name and rejects any other text.
func (s *StopReason) UnmarshalText(b []byte) error {
	r := StopReason(b)
	if !slices.Contains([]StopReason{StopNone, StopMaxInSystem, StopSLOMisses, StopAbort}, r) {
		return fmt.Errorf("stop reason %q is not one of max_in_system, slo_misses, abort or empty", b)
	}
	*s = r
	return nil
}
