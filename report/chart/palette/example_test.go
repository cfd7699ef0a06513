package palette_test

import (
	"fmt"

	"github.com/servesim/servesim/report/chart/palette"
)

func ExampleHex() {
	fmt.Println(palette.Hex()[:3])
	// Output: [#0072b2 #d55e00 #009e73]
}
