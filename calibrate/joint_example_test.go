package calibrate_test

import (
	"fmt"

	"github.com/servesim/servesim/calibrate"
)

// FitJoint's CPU-side terms are per vLLM version band, its GEMM fraction
// per GPU and weight-precision family.
func ExampleVersionBand() {
	for _, v := range []string{"0.11.0", "0.15.1", "0.19.1", "nightly-5b8c30d62b754b57", ""} {
		fmt.Printf("%q: %s\n", v, calibrate.VersionBand(v))
	}
	fmt.Println(calibrate.GEMMFamily(calibrate.Point{Precision: "fp8"}), calibrate.GEMMFamily(calibrate.Point{Precision: "int4"}))
	// Output:
	// "0.11.0": 0.11-0.12
	// "0.15.1": 0.13-0.17
	// "0.19.1": 0.18+
	// "nightly-5b8c30d62b754b57": 0.18+
	// "": unrecorded
	// fp8 fp4
}
