//go:build js

package scenario

import (
	"errors"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// statFile is os.Stat, less the calls that cannot find a file. Under
// js/wasm every file call goes out to JavaScript and back (about 0.1 ms,
// against 3 µs natively), and the browser's wasm_exec.js, which has no
// file system, answers each with ENOSYS: once os.Stat(".") has answered
// so (noFiles), statFile returns that error without the call. Model and
// GPU names are tried as files first, three or more a config; in the
// browser none can be one, and the answer is the same. Where JavaScript
// has a file system (Node's fs), every name is still probed.
func statFile(name string) (fs.FileInfo, error) {
	if noFiles() {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: syscall.ENOSYS}
	}
	return os.Stat(name)
}

// noFiles reports whether this process has no file system, asked once.
var noFiles = sync.OnceValue(hasNoFiles) // a variable for the tests

// hasNoFiles reports whether os.Stat answers ENOSYS: wasm_exec.js's
// stand-in for a file system answers every call so, whatever the path.
func hasNoFiles() bool {
	_, err := os.Stat(".")
	return errors.Is(err, syscall.ENOSYS)
}
