// Package palette holds the project's one colour palette, apart from
// package report/chart so that code which only names colours (the browser
// page's WebAssembly build) does not link the chart renderer and its fonts.
package palette

import (
	"fmt"
	"image/color"
)

// OkabeIto is Okabe and Ito's colour-blind-safe palette, in the order
// series take it: blue, vermillion, bluish green, orange, reddish purple,
// sky blue, black, yellow.
var OkabeIto = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff},
	{0xD5, 0x5E, 0x00, 0xff},
	{0x00, 0x9E, 0x73, 0xff},
	{0xE6, 0x9F, 0x00, 0xff},
	{0xCC, 0x79, 0xA7, 0xff},
	{0x56, 0xB4, 0xE9, 0xff},
	{0x00, 0x00, 0x00, 0xff},
	{0xF0, 0xE4, 0x42, 0xff},
}

// Hex returns OkabeIto as CSS colours, "#0072b2" first.
func Hex() []string {
	out := make([]string, len(OkabeIto))
	for i, c := range OkabeIto {
		out[i] = fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B)
	}
	return out
}
