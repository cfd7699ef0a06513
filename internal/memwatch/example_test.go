package memwatch_test

import (
	"fmt"

	"github.com/servesim/servesim/internal/memwatch"
)

var kept []byte

// Peak reports the live heap a function reached.
func ExamplePeak() {
	peak := memwatch.Peak(0, func() { kept = make([]byte, 32<<20) })
	fmt.Println(peak >= 32<<20)
	// Output: true
}
