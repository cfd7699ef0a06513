// Package pyjson makes the JSON that Python's json module writes readable
// by encoding/json. Python writes a float that is not finite as a bare
// NaN, Infinity or -Infinity (allow_nan=True, its default), which is not
// JSON: vllm bench serve does so for --burstiness inf (it writes the value
// as given), and a benchmark script that takes a statistic over no request
// (numpy's mean of an empty list) writes NaN; encoding/json then refuses
// the whole file.
package pyjson

import "bytes"

// Standard returns data with every bare NaN, Infinity and -Infinity
// outside strings rewritten as null, "inf" and "-inf" (the forms vLLM
// itself writes for an infinite request rate), and everything else,
// strings included, unchanged. It returns data itself when there is
// nothing to rewrite. It does not validate the rest: encoding/json does.
func Standard(data []byte) []byte {
	var out []byte // nil until the first rewrite
	last := 0      // data[last:i] is not yet copied to out
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		var word, repl string
		switch c {
		case '"':
			inString = true
			continue
		case 'N':
			word, repl = "NaN", "null"
		case 'I':
			word, repl = "Infinity", `"inf"`
		case '-':
			word, repl = "-Infinity", `"-inf"`
		default:
			continue
		}
		if !bytes.HasPrefix(data[i:], []byte(word)) {
			continue
		}
		out = append(append(out, data[last:i]...), repl...)
		i += len(word) - 1
		last = i + 1
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}
