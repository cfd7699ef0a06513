// Package ui is servesim's browser page: a static folder (HTML, CSS, a
// small script and a Web Worker) around servesim compiled to WebAssembly
// (./ui/wasm, package explore's calls). The page needs no server beyond
// one that serves files: Write builds the folder, Serve serves it on the
// loopback interface (`servesim ui`).
package ui

//go:generate go run ./mkdist

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/servesim/servesim/explore"
)

//go:embed static
var static embed.FS

// Static returns the page's own files: index.html, style.css, app.js and
// worker.js. Write adds wasm_exec.js and servesim.wasm beside them.
func Static() fs.FS {
	sub, _ := fs.Sub(static, "static")
	return sub
}

// Module is the module path whose ./ui/wasm is built.
const Module = "github.com/servesim/servesim"

// WasmName and ExecName are the simulator and Go's loader in the folder.
const (
	WasmName = "servesim.wasm"
	ExecName = "wasm_exec.js"
)

// MaxWasmBytes is the size the built module must stay under (the issue's
// 15 MB budget for the page's download).
const MaxWasmBytes = 15 << 20

// ModuleRoot returns the directory of the servesim module's go.mod at or
// above dir, the checkout the wasm is built from.
func ModuleRoot(dir string) (string, error) {
	d, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(data), []byte("module "+Module+"\n")) {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("ui: no checkout of %s at or above %s: run from one, or give a prebuilt servesim.wasm (--wasm)", Module, dir)
		}
		d = parent
	}
}

// BuildWasm compiles ./ui/wasm of the module at root for js/wasm into
// out, with the go command on $PATH, and copies that toolchain's
// wasm_exec.js beside it (the loader must match the compiler).
func BuildWasm(ctx context.Context, root, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	wasm := filepath.Join(out, WasmName)
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags=-s -w", "-o", wasm, "./ui/wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("ui: go build ./ui/wasm (GOOS=js GOARCH=wasm): %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	goroot, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("ui: go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(goroot)), "lib", "wasm", ExecName)
	data, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("ui: %v (Go 1.24 and later keep wasm_exec.js in $GOROOT/lib/wasm)", err)
	}
	if err := os.WriteFile(filepath.Join(out, ExecName), data, 0o644); err != nil {
		return err
	}
	return checkSize(wasm)
}

func checkSize(wasm string) error {
	st, err := os.Stat(wasm)
	if err != nil {
		return err
	}
	if st.Size() > MaxWasmBytes {
		return fmt.Errorf("ui: %s is %d bytes, above the %d-byte budget", wasm, st.Size(), MaxWasmBytes)
	}
	return nil
}

// CatalogName is the page's menus, defaults and limits (explore's
// catalog call), written beside the page so that the form is built while
// the wasm still compiles.
const CatalogName = "catalog.json"

// Write writes the page's static files, catalog.json and the default
// state's results (default-results.json, Precompute, natively: about
// 0.15 s) into dir, which must already hold (or receive from BuildWasm)
// servesim.wasm and wasm_exec.js.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cat, err := explore.Call("catalog", nil, nil, nil)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, CatalogName), cat, 0o644); err != nil {
		return err
	}
	pre, err := Precompute(explore.Default())
	if err != nil {
		return err
	}
	preJSON, err := json.Marshal(pre)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, DefaultResultsName), preJSON, 0o644); err != nil {
		return err
	}
	return fs.WalkDir(Static(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(Static(), path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, path), data, 0o644)
	})
}

// embedded holds servesim.wasm and wasm_exec.js when the binary was
// built with the servesim_embed tag (embed.go, after `go generate ./ui`),
// else nil.
var embedded fs.FS

// Embedded reports whether this binary carries the page's wasm, so that
// Folder needs neither a checkout nor a prebuilt file.
func Embedded() bool { return embedded != nil }

// Folder writes a complete static folder into dir: the page, and the
// wasm and its loader, copied from wasmFile (with the wasm_exec.js beside
// it) when wasmFile is given, else built from the checkout at root, else
// (root "") the ones this binary carries (Embedded).
func Folder(ctx context.Context, dir, root, wasmFile string) error {
	if err := Write(dir); err != nil {
		return err
	}
	if wasmFile == "" && root == "" {
		if embedded == nil {
			return errors.New("ui: this binary carries no wasm: run from a checkout of " + Module + ", give a prebuilt one (--wasm), or build the binary with the page (docs/ui.md)")
		}
		for _, name := range []string{WasmName, ExecName} {
			data, err := fs.ReadFile(embedded, name)
			if err != nil {
				return fmt.Errorf("ui: the embedded page: %v", err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				return err
			}
		}
		return checkSize(filepath.Join(dir, WasmName))
	}
	if wasmFile == "" {
		return BuildWasm(ctx, root, dir)
	}
	data, err := os.ReadFile(wasmFile)
	if err != nil {
		return fmt.Errorf("ui: --wasm: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, WasmName), data, 0o644); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(wasmFile), ExecName)); err == nil {
		exec, err := os.ReadFile(filepath.Join(filepath.Dir(wasmFile), ExecName))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, ExecName), exec, 0o644); err != nil {
			return err
		}
		return checkSize(filepath.Join(dir, WasmName))
	}
	return errors.New("ui: --wasm: no wasm_exec.js beside " + wasmFile + ": copy it from $(go env GOROOT)/lib/wasm of the Go that built the wasm")
}

// Handler serves the folder dir, with the wasm's MIME type (browsers
// compile application/wasm while it streams) and no caching, so a
// rebuilt page is always the one shown.
func Handler(dir string) http.Handler {
	files := http.FileServer(http.Dir(dir))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, ".wasm") {
			w.Header().Set("Content-Type", "application/wasm")
		}
		w.Header().Set("Cache-Control", "no-cache")
		files.ServeHTTP(w, r)
	})
}

// Serve listens on addr (a loopback address: "127.0.0.1:0" picks a free
// port), calls ready with the page's URL, and serves dir until ctx ends.
func Serve(ctx context.Context, addr, dir string, ready func(url string)) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("ui: --addr %q: %v (want host:port, e.g. 127.0.0.1:8080)", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return fmt.Errorf("ui: --addr %q: serve on a loopback address (127.0.0.1, ::1 or localhost); for another host, write the folder with --out and serve it with any static server", addr)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("ui: %v", err)
	}
	srv := &http.Server{Handler: Handler(dir), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	ready("http://" + ln.Addr().String() + "/")
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("ui: %v", err)
	}
	return nil
}

// BrowserCommand returns the command that opens url in the desktop's
// browser on the system goos ("darwin": open; "windows": rundll32's URL
// handler; others: xdg-open, and only when getenv says a display is
// there), or ok false when there is none to use: a headless machine,
// where the URL is printed for the user to open.
func BrowserCommand(goos, url string, getenv func(string) string) (name string, args []string, ok bool) {
	switch goos {
	case "darwin":
		return "open", []string{url}, true
	case "windows":
		return "rundll32", []string{"url.dll,FileProtocolHandler", url}, true
	case "js", "wasip1", "ios", "android":
		return "", nil, false
	}
	if getenv("DISPLAY") == "" && getenv("WAYLAND_DISPLAY") == "" {
		return "", nil, false
	}
	return "xdg-open", []string{url}, true
}

// OpenBrowser starts BrowserCommand for url on this system and does not
// wait for it. It returns an error when there is no browser to start.
func OpenBrowser(url string) error {
	name, args, ok := BrowserCommand(runtime.GOOS, url, os.Getenv)
	if !ok {
		return errors.New("no display to open a browser on")
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
