package memwatch

import (
	"os"
	"strconv"
	"strings"
)

// ResetPeakRSS resets the process's peak resident set size (Linux's
// VmHWM, through /proc/self/clear_refs); elsewhere it does nothing.
func ResetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// PeakRSS returns the process's peak resident set size in bytes since the
// last ResetPeakRSS (Linux's VmHWM), or 0 where it cannot be read.
func PeakRSS() float64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
