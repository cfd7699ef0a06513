package capacity_test

import (
	"os"
	"testing"

	"github.com/servesim/servesim/internal/gcfloor"
)

// TestMain lays the heap floor the servesim command runs under
// (internal/gcfloor): the simulations here keep little live and allocate
// much, and under Go's default pacing the collector took 10-25% of this
// package's test CPU. It changes no result (the simulations are
// deterministic) and no test here reads heap counters.
func TestMain(m *testing.M) {
	gcfloor.Set()
	os.Exit(m.Run())
}
