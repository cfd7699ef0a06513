package vllmbench

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/servesim/servesim/internal/pyjson"
)

// DecodeResults splits the data of a result file into its JSON objects:
// one, as `vllm bench serve --save-result` writes it, or several, one a
// line, as --append-result adds them (servesim's own files are read the
// same way). Python's bare NaN, Infinity and -Infinity, which vLLM's
// json.dump writes for non-finite floats, read as null, "inf" and "-inf"
// (pyjson.Standard). On a malformed object it returns the objects before
// it with the error, so the bad one is result len(objs)+1. Empty data is
// no object and no error: the callers say what an empty file means to
// them. The report and calibrate read result files through it.
func DecodeResults(data []byte) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(pyjson.Standard(data)))
	var objs []json.RawMessage
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return objs, nil
		} else if err != nil {
			return objs, err
		}
		objs = append(objs, raw)
	}
}
