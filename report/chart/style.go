package chart

import (
	"image/color"
	"sync"

	stdfont "golang.org/x/image/font"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"

	"github.com/servesim/servesim/report/chart/palette"
)

// The one style every chart shares. Lengths are CSS pixels (1/96 inch);
// font sizes too.
const (
	// Width and Height are a panel's size.
	Width, Height = 560.0, 380.0
	// DPI is the resolution of PNG output: 2 image pixels per CSS pixel.
	DPI = 192

	// FontFamily is the SVG font: Liberation Sans, whose metrics (those
	// used for the layout, and those of the PNG renderer) are Arial's.
	FontFamily = "'Liberation Sans', Arial, Helvetica, sans-serif"

	titleSize      = 15.0
	labelSize      = 13.0
	tickSize       = 12.0
	legendSize     = 12.0
	pointLabelSize = 11.0
	pad            = 12.0
	lineWidth      = 2.0
	markerRadius   = 4.0
)

// Palette is Okabe and Ito's colour-blind-safe palette (package
// report/chart/palette), in the order series take it. Each Style also has
// its own marker shape, so series stay apart in grey scale too.
var Palette = palette.OkabeIto

// Colour returns the colour of a style.
func Colour(style int) color.RGBA { return Palette[mod(style, len(Palette))] }

func mod(a, n int) int { return (a%n + n) % n }

// Fixed colours of the furniture.
var (
	ink       = color.RGBA{0x22, 0x22, 0x22, 0xff} // text, axes
	softInk   = color.RGBA{0x55, 0x55, 0x55, 0xff} // tick labels
	gridGrey  = color.RGBA{0xe3, 0xe3, 0xe3, 0xff}
	boxGrey   = color.RGBA{0xbb, 0xbb, 0xbb, 0xff}
	white     = color.RGBA{0xff, 0xff, 0xff, 0xff}
	bandFill  = color.NRGBA{0x00, 0x9E, 0x73, 0x30} // bluish green, light
	ruleColor = color.RGBA{0x00, 0x00, 0x00, 0xff}
)

// Marker shapes, by style.
const (
	circle = iota
	square
	triangle
	diamond
	triangleDown
	numShapes
)

func shapeOf(style int) int { return mod(style, numShapes) }

// dash patterns, in px.
var (
	dashed    = []float64{6, 4}
	ruleDash  = []float64{5, 3}
	solidLine []float64
)

var (
	fontsOnce sync.Once
	fonts     *font.Cache
)

// face returns Liberation Sans at size px (bold or regular). Its widths,
// in the same unit as size, lay the text out.
func face(size float64, bold bool) font.Face {
	fontsOnce.Do(func() { fonts = font.NewCache(liberation.Collection()) })
	f := font.Font{Typeface: "Liberation", Variant: "Sans"}
	if bold {
		f.Weight = stdfont.WeightBold
	}
	return fonts.Lookup(f, font.Length(size))
}

// textWidth returns the width of s at size px.
func textWidth(s string, size float64, bold bool) float64 {
	f := face(size, bold)
	return float64(f.Width(s))
}
