package cost

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedData returns the path of file in the shared data folder that sits
// beside the repository (../shared/data from the repository root), found by
// walking up from the working directory. It skips the test when the folder
// is missing.
func sharedData(t testing.TB, file string) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("getwd: %v", err)
	}
	for {
		candidate := filepath.Join(dir, "shared", "data")
		if st, err := os.Stat(candidate); err == nil && st.IsDir() {
			return filepath.Join(candidate, file)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Skipf("shared/data not found above the working directory; %s is needed (CI keeps ../shared beside the checkout)", file)
		}
		dir = parent
	}
}
