package main

import (
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/vllmbench"
)

// benchFieldError is a scenario field error in bench's words: the field
// becomes the flag that sets it (vllmbench.FlagOfPath, a table of the typed field,
// never a rewrite of the message); a field no flag sets keeps its path.
// Errors that name no field read as they are.
func benchFieldError(err error) string {
	fe := fielderr.Of(err)
	if fe == nil {
		return err.Error()
	}
	cp := *fe
	cp.File, cp.Line = "", 0 // bench's scenario comes from flags, not a file
	if f, ok := vllmbench.FlagOfPath[fe.Field]; ok {
		cp.Field = f
	}
	return cp.Error()
}
