package shareddata_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/servesim/servesim/internal/shareddata"
)

// Find walks up from the working directory to the folder that holds
// shared/data, as a checkout beside ../shared has it.
func ExampleFind() {
	root, _ := os.MkdirTemp("", "shareddata")
	defer os.RemoveAll(root)
	_ = os.MkdirAll(filepath.Join(root, "shared", "data"), 0o755)
	_ = os.MkdirAll(filepath.Join(root, "main", "cost"), 0o755)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	_ = os.Chdir(filepath.Join(root, "main", "cost"))

	dir, ok := shareddata.Find()
	rel, _ := filepath.Rel(root, dir)
	fmt.Println(ok, rel)
	// Output: true shared/data
}
