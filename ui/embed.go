//go:build servesim_embed

package ui

import (
	"embed"
	"io/fs"
)

// dist is written by `go generate ./ui` (mkdist): the wasm and the loader
// of the Go that built it. Building with -tags servesim_embed puts them
// in the binary, so `servesim ui` serves the page from anywhere.
//
//go:embed dist/servesim.wasm dist/wasm_exec.js
var dist embed.FS

func init() {
	sub, err := fs.Sub(dist, "dist")
	if err == nil {
		embedded = sub
	}
}
