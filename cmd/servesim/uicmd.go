package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/ui"
)

const uiUsage = `Usage: servesim ui [flags]

Serves the browser page on a loopback address, prints its URL and opens
it in the desktop's browser (--no-browser: only print it): the
simulator compiled to WebAssembly runs in the page (no server work), with
lambda*, latency percentiles against the rate, closed against open loop,
TP against replicas, the plan and the profile, and every view's servesim
and vllm command lines. The page's state is its URL.

It builds servesim.wasm from the checkout it runs in (go build, GOOS=js
GOARCH=wasm: a few seconds when cached), or takes a prebuilt one with
--wasm (wasm_exec.js beside it); a binary built with the page in it
(go generate ./ui && go build -tags servesim_embed ./cmd/servesim)
serves its own from anywhere. With --out DIR it writes the static
folder and exits: any static file server can serve DIR.
`

// runUI is `servesim ui`.
func runUI(args []string, e *env) error {
	fs := cliflag.NewFlagSet("ui")
	addr := fs.String("addr", "127.0.0.1:8080", "loopback `host:port` to serve on (port 0: any free port)")
	out := fs.String("out", "", "write the static folder to `DIR` and exit instead of serving")
	wasm := fs.String("wasm", "", "a prebuilt servesim.wasm `FILE` (with wasm_exec.js beside it) instead of building one")
	noBrowser := fs.Bool("no-browser", false, "print the URL without opening a browser")
	group := []cliflag.Group{{Title: "ui flags", Names: []string{"addr", "out", "wasm", "no-browser"}}}
	pos, err := cliflag.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(e.stdout, uiUsage)
		cliflag.Print(e.stdout, fs, group)
		return errHelp
	}
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return fmt.Errorf("ui: unexpected argument %q (ui takes only flags; see servesim ui -h)", pos[0])
	}
	// The wasm: --wasm's file, else built from the checkout here, else
	// the one this binary carries.
	root := ""
	if *wasm == "" {
		if root, err = ui.ModuleRoot("."); err != nil && !ui.Embedded() {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	dir := *out
	if dir == "" {
		if dir, err = os.MkdirTemp("", "servesim-ui-"); err != nil {
			return fmt.Errorf("ui: %w", err)
		}
		defer os.RemoveAll(dir)
	}
	fmt.Fprintln(e.stderr, "servesim ui: building the page…")
	if err := ui.Folder(ctx, dir, root, *wasm); err != nil {
		return err
	}
	if *out != "" {
		fmt.Fprintf(e.stderr, "servesim ui: wrote %s (serve it with any static file server)\n", dir)
		return nil
	}
	return ui.Serve(ctx, *addr, dir, func(url string) {
		fmt.Fprintf(e.stdout, "servesim ui: %s (Ctrl-C to stop)\n", url)
		if *noBrowser {
			return
		}
		if err := ui.OpenBrowser(url); err != nil {
			fmt.Fprintf(e.stderr, "servesim ui: open the URL in a browser (%v)\n", err)
		}
	})
}
