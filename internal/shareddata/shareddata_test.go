package shareddata

import (
	"os"
	"path/filepath"
	"testing"
)

func TestFindFromSubdirectory(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "shared", "data")
	deep := filepath.Join(root, "main", "pkg", "sub")
	for _, d := range []string{data, deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(deep)
	got, ok := Find()
	if !ok {
		t.Fatalf("Find() found nothing from %s", deep)
	}
	want, _ := filepath.EvalSymlinks(data)
	if g, _ := filepath.EvalSymlinks(got); g != want {
		t.Fatalf("Find() = %s, want %s", got, want)
	}
}

func TestFindNone(t *testing.T) {
	t.Chdir(t.TempDir())
	// No folder above a fresh temporary directory holds shared/data.
	if d, ok := Find(); ok {
		t.Fatalf("Find() = %q from an empty temporary directory, want nothing", d)
	}
}
