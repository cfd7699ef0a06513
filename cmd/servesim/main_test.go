package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// asMain, set in a child's environment, makes this test binary run the
// command (main) instead of the tests. The tests run servesim as a child
// process, and that process is this test binary, which links the same
// package main: no second binary to build (a `go build` of the command
// took about a second of every go test run).
const asMain = "SERVESIM_TEST_AS_MAIN"

// bin is the servesim executable the tests run (this test binary), and
// childEnv what each run adds to the environment.
var (
	bin      string
	childEnv []string
)

func TestMain(m *testing.M) {
	if os.Getenv(asMain) == "1" {
		main() // exits
	}
	flag.Parse()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin, childEnv = exe, []string{asMain + "=1"}
	// A test binary built with -cover that exits from main writes its
	// counters as a tool would: to GOCOVERDIR, else a warning on stderr.
	var coverDir string
	if testing.CoverMode() != "" {
		if coverDir, err = os.MkdirTemp("", "servesim-cover"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		childEnv = append(childEnv, "GOCOVERDIR="+coverDir)
	}
	code := m.Run()
	if coverDir != "" {
		os.RemoveAll(coverDir)
	}
	os.Exit(code)
}

// result is one run of the binary.
type result struct {
	stdout, stderr string
	code           int
}

// servesim runs the binary with args in dir ("" for the package
// directory) and extra environment variables.
func servesimIn(t *testing.T, dir string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), childEnv...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("servesim %s: %v", strings.Join(args, " "), err)
	}
	return result{out.String(), errb.String(), code}
}

func servesim(t *testing.T, args ...string) result {
	t.Helper()
	return servesimIn(t, "", nil, args...)
}

// mustRun runs the binary and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) result {
	t.Helper()
	r := servesim(t, args...)
	if r.code != 0 {
		t.Fatalf("servesim %s: exit %d\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return r
}

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	r := mustRun(t, "help")
	for _, want := range []string{"bench", "run", "merge", "capacity", "tp"} {
		if !strings.Contains(r.stdout, "  "+want+" ") {
			t.Errorf("help does not list %q:\n%s", want, r.stdout)
		}
	}
	for _, cmd := range []string{"bench", "run", "merge", "capacity", "tp"} {
		r := mustRun(t, cmd, "-h")
		if !strings.Contains(r.stdout, "Usage: servesim "+cmd) || r.stderr != "" {
			t.Errorf("servesim %s -h: stdout %q, stderr %q", cmd, r.stdout, r.stderr)
		}
	}
	r = mustRun(t, "help", "bench")
	for _, flag := range []string{"--request-rate", "--goodput", "--enable-chunked-prefill", "--no-enable-chunked-prefill", "--service-time", "--ignore-eos"} {
		if !strings.Contains(r.stdout, flag) {
			t.Errorf("bench help lacks %s", flag)
		}
	}
}
