package sim

import "fmt"

// StopReason says why a run ended before its stop rule (every request
// injected and drained, or the horizon).
type StopReason uint8

// Stop reasons.
const (
	// StopNone: the run ended by its stop rule.
	StopNone StopReason = iota
	// StopMaxInSystem: the requests in the system reached
	// Config.MaxInSystem; the run is judged unstable.
	StopMaxInSystem
	// StopSLOMisses: Config.StopAfterMisses requests certainly missed the
	// SLO.
	StopSLOMisses
	// StopAbort: the server aborted the run (Env.Abort).
	StopAbort
)

var stopNames = [...]string{"", "max_in_system", "slo_misses", "abort"}

// String returns the reason's name in results: "" for StopNone,
// "max_in_system", "slo_misses" or "abort".
func (s StopReason) String() string {
	if int(s) < len(stopNames) {
		return stopNames[s]
	}
	return fmt.Sprintf("StopReason(%d)", uint8(s))
}

// MarshalText writes String.
func (s StopReason) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a name written by MarshalText.
func (s *StopReason) UnmarshalText(b []byte) error {
	for i, n := range stopNames {
		if n == string(b) {
			*s = StopReason(i)
			return nil
		}
	}
	return fmt.Errorf("stop reason %q is not one of max_in_system, slo_misses, abort or empty", b)
}
