package memwatch

import "testing"

var sink [][]byte

// TestPeakSeesLiveData: holding 64 MiB live shows a peak of at least that,
// and one that allocates as much garbage under a 32 MiB limit shows less.
func TestPeakSeesLiveData(t *testing.T) {
	big := Peak(0, func() {
		for range 64 {
			sink = append(sink, make([]byte, 1<<20))
		}
	})
	sink = nil
	if big < 64<<20 {
		t.Fatalf("peak %d bytes while holding 64 MiB", big)
	}
	small := Peak(32<<20, func() {
		for range 64 {
			b := make([]byte, 1<<20)
			b[0] = 1
		}
	})
	if small >= big {
		t.Fatalf("peak %d bytes of garbage under a limit >= %d bytes held live", small, big)
	}
}
