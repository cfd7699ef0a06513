//go:build js && wasm

// Command wasm is servesim compiled to WebAssembly for the browser page
// of package ui (GOOS=js GOARCH=wasm go build -o servesim.wasm ./ui/wasm).
// It sets one global function,
//
//	servesimCall(fn, requestJSON, argsJSON) -> {ok: resultJSON} | {error: message}
//
// which runs explore.Call, and calls servesimProgress(rate), when the
// page defines it, after each rate a search probes. It then waits for
// calls until the page goes away.
package main

import (
	"syscall/js"

	"github.com/servesim/servesim/explore"
)

func main() {
	// No heap floor here, unlike the command (internal/gcfloor): in the
	// page each worker's wasm memory grows page by page, and growing it
	// to the 64 MB floor cost more than the collections it saves. In Node,
	// the page's first view (init, search, 17 bench points) took 851–945
	// ms without the floor against 895–1122 ms with it (three runs each).
	js.Global().Set("servesimCall", js.FuncOf(call))
	if ready := js.Global().Get("servesimReady"); ready.Type() == js.TypeFunction {
		ready.Invoke()
	}
	select {}
}

// call is servesimCall. It never panics into the page: a panic is
// returned as an error naming it.
func call(_ js.Value, args []js.Value) (out any) {
	defer func() {
		if r := recover(); r != nil {
			out = map[string]any{"error": "servesim: internal error (please report it with the page's URL)"}
		}
	}()
	if len(args) < 2 || args[0].Type() != js.TypeString || args[1].Type() != js.TypeString {
		return map[string]any{"error": "servesimCall(fn, requestJSON[, argsJSON]): fn and requestJSON must be strings"}
	}
	var extra []byte
	if len(args) > 2 && args[2].Type() == js.TypeString {
		extra = []byte(args[2].String())
	}
	var progress func(float64)
	if p := js.Global().Get("servesimProgress"); p.Type() == js.TypeFunction {
		progress = func(rate float64) { p.Invoke(rate) }
	}
	res, err := explore.Call(args[0].String(), []byte(args[1].String()), extra, progress)
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	return map[string]any{"ok": string(res)}
}
