// Package shareddata finds the project's shared data folder for tests.
//
// The real traces, NCCL tables and vLLM measurements live beside the
// repository in ../shared/data (see its README.md); tests read them from
// there and never copy them into the repository. Outside CI a missing
// folder skips the test; with the CI environment variable set it fails the
// test, because CI always has the folder and a skip there would hide a
// broken check.
package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

// Find returns the path of the shared/data folder found by walking up from
// the working directory, and false when there is none.
func Find() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		candidate := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(candidate); err == nil && st.IsDir() {
			return candidate, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// Path returns the path of name inside the shared data folder. When the
// folder is missing it fails t under CI (the CI environment variable set)
// and skips t elsewhere.
func Path(t testing.TB, name string) string {
	t.Helper()
	dir, ok := Find()
	if !ok {
		msg := "shared/data not found above the working directory; " + name + " is needed (CI keeps ../shared beside the checkout)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared data file %s: %v", name, err)
	}
	return p
}
