package mix

import (
	"fmt"
	"math/bits"
	"testing"
)

// TestAvalanche: flipping one input bit flips about half the output bits
// (the finaliser's avalanche property), averaged over many inputs; and 0
// is a fixed point.
func TestAvalanche(t *testing.T) {
	t.Parallel()
	const n = 2000
	var flips float64
	for i := range uint64(n) {
		x := i*0x9e3779b97f4a7c15 + 1
		for b := range 64 {
			flips += float64(bits.OnesCount64(Mix64(x) ^ Mix64(x^(1<<b))))
		}
	}
	mean := flips / (n * 64)
	// A fair coin per output bit: mean 32, sd of the mean ~ 4/sqrt(128000) ≈ 0.011.
	if mean < 31.8 || mean > 32.2 {
		t.Fatalf("mean output bits flipped %.3f, want about 32", mean)
	}
	if Mix64(0) != 0 {
		t.Fatalf("Mix64(0) = %#x, want 0 (the finaliser fixes 0)", Mix64(0))
	}
}

func ExampleMix64() {
	fmt.Printf("%#x\n", Mix64(1))
	// Output: 0xb456bcfc34c2cb2c
}
