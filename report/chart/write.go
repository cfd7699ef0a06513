package chart

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot/vg/vgimg"
)

// WriteSVG writes the charts as one standalone SVG document: panels of
// Width × Height, cols to a row (0: up to 3).
func WriteSVG(w io.Writer, cols int, charts ...*Chart) error {
	return svgDoc(w, charts, cols, false)
}

// InlineSVG writes the charts as an <svg> element for an HTML page: no
// namespace, no size but its viewBox, so it scales to its container.
func InlineSVG(w io.Writer, cols int, charts ...*Chart) error {
	return svgDoc(w, charts, cols, true)
}

// WritePNG writes the charts as one PNG image at DPI (2 pixels per CSS
// pixel: 1120 × 760 pixels a panel).
func WritePNG(w io.Writer, cols int, charts ...*Chart) error {
	c, err := rasterDoc(charts, cols)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: c}.WriteTo(w)
	return err
}

// Format returns the image format of a file name: "png" or "svg".
func Format(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg":
		return ext[1:], nil
	default:
		return "", fmt.Errorf("file %q: want a .png or .svg name", path)
	}
}

// WriteFile writes the charts to path as PNG or SVG, by its extension,
// up to 3 panels to a row.
func WriteFile(path string, charts ...*Chart) error {
	format, err := Format(path)
	if err != nil {
		return err
	}
	if len(charts) == 0 {
		return errors.New("no charts to draw")
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if format == "png" {
		err = WritePNG(f, 0, charts...)
	} else {
		err = WriteSVG(f, 0, charts...)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
