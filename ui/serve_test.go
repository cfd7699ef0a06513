package ui

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestServe serves a folder with a stand-in wasm: the page, the wasm's
// MIME type, the URL handed to ready, and a clean stop when ctx ends.
func TestServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := Write(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, WasmName), []byte("\x00asm\x01\x00\x00\x00"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "127.0.0.1:0", dir, func(u string) { urls <- u }) }()
	var url string
	select {
	case url = <-urls:
	case err := <-done:
		t.Fatal(err)
	}
	for _, c := range []struct{ path, ctype, body string }{
		{"", "text/html", "servesim explorer"},
		{"app.js", "javascript", "servesimCall"},
		{WasmName, "application/wasm", "asm"},
		{CatalogName, "application/json", `"models"`},
		{DefaultResultsName, "application/json", `"calls"`},
	} {
		resp, err := http.Get(url + c.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Type"), c.ctype) || !strings.Contains(string(body), c.body) {
			t.Errorf("GET /%s: %d %q, body without %q", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), c.body)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after cancel: %v", err)
	}
}

// TestServeRefusesOtherHosts checks that Serve only listens on loopback,
// and that a bad address is an error naming it.
func TestServeRefusesOtherHosts(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:8080", "192.168.1.2:80", "example.com:80", "8080", ":8080"} {
		err := Serve(context.Background(), addr, t.TempDir(), func(string) { t.Errorf("%s: served", addr) })
		if err == nil || !strings.Contains(err.Error(), addr) {
			t.Errorf("Serve(%q): %v, want an error naming the address", addr, err)
		}
	}
}

// TestFolderPrebuilt copies a prebuilt wasm and its loader, and refuses a
// wasm without wasm_exec.js beside it.
func TestFolderPrebuilt(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	wasm := filepath.Join(src, WasmName)
	os.WriteFile(wasm, []byte("\x00asm"), 0o644)
	out := t.TempDir()
	err := Folder(context.Background(), out, "", wasm)
	if err == nil || !strings.Contains(err.Error(), ExecName) {
		t.Errorf("without %s: %v", ExecName, err)
	}
	os.WriteFile(filepath.Join(src, ExecName), []byte("// go"), 0o644)
	if err := Folder(context.Background(), out, "", wasm); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"index.html", "app.js", "worker.js", "style.css", WasmName, ExecName} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("the folder lacks %s: %v", f, err)
		}
	}
	if _, err := ModuleRoot(t.TempDir()); err == nil {
		t.Error("ModuleRoot found a checkout in an empty temp dir")
	}
}

// TestBrowserCommand: the opener of each system, and none on a Linux
// without a display (the URL is printed instead).
func TestBrowserCommand(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }
	for _, c := range []struct {
		goos string
		vars map[string]string
		name string
		ok   bool
	}{
		{"darwin", nil, "open", true},
		{"windows", nil, "rundll32", true},
		{"linux", map[string]string{"DISPLAY": ":0"}, "xdg-open", true},
		{"freebsd", map[string]string{"WAYLAND_DISPLAY": "wayland-0"}, "xdg-open", true},
		{"linux", nil, "", false},
		{"js", map[string]string{"DISPLAY": ":0"}, "", false},
	} {
		name, args, ok := BrowserCommand(c.goos, "http://127.0.0.1:1/", env(c.vars))
		if name != c.name || ok != c.ok || (ok && args[len(args)-1] != "http://127.0.0.1:1/") {
			t.Errorf("%s %v: %q %q %v, want %q %v", c.goos, c.vars, name, args, ok, c.name, c.ok)
		}
	}
}

// TestFolderEmbedded: with no checkout and no --wasm file, Folder copies
// the wasm and loader a servesim_embed binary carries, and says what to
// do when the binary carries none. (Not parallel: it sets embedded.)
func TestFolderEmbedded(t *testing.T) {
	saved := embedded
	defer func() { embedded = saved }()
	embedded = nil
	err := Folder(context.Background(), t.TempDir(), "", "")
	if err == nil || !strings.Contains(err.Error(), "--wasm") || !strings.Contains(err.Error(), "checkout") {
		t.Errorf("Folder without a wasm: %v", err)
	}
	embedded = fstest.MapFS{
		WasmName: {Data: []byte("\x00asm\x01\x00\x00\x00")},
		ExecName: {Data: []byte("// loader")},
	}
	dir := t.TempDir()
	if err := Folder(context.Background(), dir, "", ""); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{WasmName: "\x00asm\x01\x00\x00\x00", ExecName: "// loader"} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Error(err)
	}
}

// TestWasmLinksNoRenderer: the page draws its own SVG, so its wasm must
// not link the chart renderer (gonum/plot and its fonts made a fifth of
// the module and of its compile time).
func TestWasmLinksNoRenderer(t *testing.T) {
	t.Parallel()
	root, err := ModuleRoot(".")
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command("go", "list", "-deps", "./ui/wasm")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "gonum.org/v1/plot") || strings.HasSuffix(dep, "/report/chart") || strings.Contains(dep, "go-fonts") {
			t.Errorf("ui/wasm links %s", dep)
		}
	}
}
