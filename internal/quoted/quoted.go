// Package quoted checks that an error message quotes the input at fault,
// for the fuzz targets of the project's parsers.
package quoted

import (
	"strconv"
	"strings"
)

// ContainsPart reports whether msg holds a Go-quoted string that is a
// non-empty part of s: an error about s that names (part of) it.
func ContainsPart(msg, s string) bool {
	for i := 0; i < len(msg); i++ {
		if msg[i] != '"' {
			continue
		}
		q, err := strconv.QuotedPrefix(msg[i:])
		if err != nil {
			continue
		}
		if p, err := strconv.Unquote(q); err == nil && p != "" && strings.Contains(s, p) {
			return true
		}
	}
	return false
}
