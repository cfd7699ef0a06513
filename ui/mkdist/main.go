// Command mkdist builds the browser page's wasm and loader into ui/dist
// (run by `go generate ./ui`), for a servesim binary that carries the
// page: go build -tags servesim_embed ./cmd/servesim.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/servesim/servesim/ui"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := ui.ModuleRoot(".")
	if err != nil {
		return err
	}
	out := filepath.Join(root, "ui", "dist")
	if err := ui.BuildWasm(context.Background(), root, out); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "mkdist: wrote", out)
	return nil
}
