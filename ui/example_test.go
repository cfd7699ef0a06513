package ui_test

import (
	"fmt"
	"io/fs"

	"github.com/servesim/servesim/ui"
)

// The page's own files; ui.Folder adds servesim.wasm and wasm_exec.js.
func ExampleStatic() {
	names, _ := fs.Glob(ui.Static(), "*")
	fmt.Println(names)
	// Output: [app.js index.html style.css worker.js]
}
