//go:build !js

package scenario

import (
	"io/fs"
	"os"
)

// statFile is os.Stat (stat_js.go skips the calls under js/wasm where
// there is no file system).
func statFile(name string) (fs.FileInfo, error) { return os.Stat(name) }
