package capacity_test

import (
	"testing"

	"github.com/servesim/servesim/internal/gcfloor"
)

// TestMain lays the heap floor the servesim command runs under
// (gcfloor.RunTests); no test here reads heap counters.
func TestMain(m *testing.M) { gcfloor.RunTests(m) }
