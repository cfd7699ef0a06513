//go:build js

package scenario

import (
	"fmt"
	"syscall/js"
	"testing"
)

// stubStat replaces the JavaScript fs's stat with the browser's answer
// (wasm_exec.js's: ENOSYS at once, whatever the path), counting its calls
// in globalThis.servesimStatCalls, until the test ends.
func stubStat(t *testing.T) {
	fsys := js.Global().Get("fs")
	real := fsys.Get("stat")
	stub := js.Global().Get("Function").New("...args", `
		globalThis.servesimStatCalls = (globalThis.servesimStatCalls || 0) + 1;
		const err = new Error("not implemented");
		err.code = "ENOSYS";
		args[args.length - 1](err);`)
	fsys.Set("stat", stub)
	js.Global().Set("servesimStatCalls", 0)
	t.Cleanup(func() { fsys.Set("stat", real) })
}

// TestStatFileWithoutFiles: where os.Stat answers ENOSYS (the browser),
// statFile skips the call, and the model and GPU a scenario resolves, and
// the errors of names that are not there, are those of the probing os.Stat.
func TestStatFileWithoutFiles(t *testing.T) {
	if hasNoFiles() {
		t.Fatal("hasNoFiles with Node's fs, want false")
	}
	stubStat(t)
	if !hasNoFiles() {
		t.Fatal("hasNoFiles with wasm_exec.js's ENOSYS stat, want true")
	}
	probing := noFiles
	t.Cleanup(func() { noFiles = probing })
	resolve := func(skip bool) (out string, calls int) {
		noFiles = func() bool { return skip }
		js.Global().Set("servesimStatCalls", 0)
		for _, name := range [][2]string{
			{"llama-3.1-8b", "h100-sxm"}, {"qwen2.5-7b", "a100-80gb"}, {"Qwen/Qwen2.5-7B-Instruct", "H100"},
			{"no-such-model", "no-such-gpu"}, {"model.json", "gpu.yaml"}, {"../cost/testdata/mixtral-8x7b", "h100-sxm"},
		} {
			s := Default()
			s.Server.Model, s.Server.GPU = name[0], name[1]
			m, err := s.Model()
			g, gerr := s.GPU()
			_, cerr := s.Config()
			out += fmt.Sprintf("%s: %+v %v; %s: %+v %v; config %v\n", name[0], m, err, name[1], g, gerr, cerr)
		}
		return out, js.Global().Get("servesimStatCalls").Int()
	}
	probed, n := resolve(false)
	skipped, m := resolve(true)
	if probed != skipped {
		t.Errorf("without the stat calls:\n%s\nwith them:\n%s", skipped, probed)
	}
	if n == 0 || m != 0 {
		t.Errorf("%d stat calls probing and %d skipping, want some and none", n, m)
	}
}
