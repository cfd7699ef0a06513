package vllmbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/servesim/servesim/sim/metrics"
)

// resultDoc is the result JSON before it is written: its keys in order,
// each with its encoded value, a nested object (servesim's) or a
// per-request column, which is written from the records element by
// element, so the JSON of a million requests is never held in memory.
type resultDoc []docMember

type docMember struct {
	key string
	raw json.RawMessage // the encoded value, when col and sub are nil
	col *column
	sub *resultDoc
}

// column is one per-request list: elem appends its JSON element for a
// measured request. An empty column is written as [] or, where vLLM's
// list (a Go nil slice before) gives null, as null.
type column struct {
	nullEmpty bool
	elem      func(b []byte, r *metrics.Request) []byte
}

// put adds key with v: a *column is kept to be written from the records,
// any other value is encoded now as jsonobj does (non-finite float64s as
// null). With replace, an existing key's value is replaced in its place
// (jsonobj.Object.Set's rule: a --metadata key that vLLM also writes
// keeps its place); without it, the member is appended.
func (d *resultDoc) put(key string, v any, replace bool) error {
	m := docMember{key: key}
	if c, ok := v.(*column); ok {
		m.col = c
	} else {
		if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
			v = nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		m.raw = b
	}
	if replace {
		for i := range *d {
			if (*d)[i].key == key {
				(*d)[i] = m
				return nil
			}
		}
	}
	*d = append(*d, m)
	return nil
}

// write writes the object to w; the columns read the measured records of
// reqs. Errors stay in w (bufio's sticky error): the caller flushes.
func (d resultDoc) write(w *bufio.Writer, reqs []metrics.Request) {
	w.WriteByte('{')
	for i, m := range d {
		if i > 0 {
			w.WriteByte(',')
		}
		w.Write(jsonString(nil, m.key))
		w.WriteByte(':')
		switch {
		case m.sub != nil:
			m.sub.write(w, reqs)
		case m.col != nil:
			m.col.write(w, reqs)
		default:
			w.Write(m.raw)
		}
	}
	w.WriteByte('}')
}

func (c *column) write(w *bufio.Writer, reqs []metrics.Request) {
	var b []byte
	n := 0
	for i := range reqs {
		r := &reqs[i]
		if r.Warmup {
			continue
		}
		b = b[:0]
		if n == 0 {
			b = append(b, '[')
		} else {
			b = append(b, ',')
		}
		b = c.elem(b, r)
		w.Write(b)
		n++
	}
	switch {
	case n > 0:
		w.WriteByte(']')
	case c.nullEmpty:
		w.WriteString("null")
	default:
		w.WriteString("[]")
	}
}

// jsonString appends s encoded as encoding/json encodes a string (HTML
// characters escaped).
func jsonString(b []byte, s string) []byte {
	e, _ := json.Marshal(s) // a string always encodes
	return append(b, e...)
}

// appendPyNum appends x as Python's json.dump writes a float: with a
// decimal point (20.0, not 20), in exponent form below 1e-4 and from
// 1e16 (1e-05, 1e+16), null when not finite.
func appendPyNum(b []byte, x float64) []byte {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return append(b, "null"...)
	}
	if a := math.Abs(x); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.AppendFloat(b, x, 'e', -1, 64)
	}
	n := len(b)
	b = strconv.AppendFloat(b, x, 'f', -1, 64)
	if bytes.IndexByte(b[n:], '.') < 0 {
		b = append(b, ".0"...)
	}
	return b
}

// sentTime is when the client sent r (its arrival when no send was
// recorded).
func sentTime(r *metrics.Request) float64 {
	if r.Sent < 0 {
		return r.Arrival
	}
	return r.Sent
}

// floatColumn is a column of one float a request.
func floatColumn(f func(r *metrics.Request) float64) *column {
	return &column{elem: func(b []byte, r *metrics.Request) []byte { return appendPyNum(b, f(r)) }}
}

// completedFloat is f for a completed request, 0.0 for the others (vLLM's
// value of a failed request).
func completedFloat(f func(r *metrics.Request) float64) *column {
	return floatColumn(func(r *metrics.Request) float64 {
		if r.Status != metrics.Completed {
			return 0
		}
		return f(r)
	})
}

// stringColumn is a column of one string a request; the encoded form of
// the last string is kept, as most requests repeat it.
func stringColumn(f func(r *metrics.Request) string) *column {
	var last string
	var enc []byte
	return &column{nullEmpty: true, elem: func(b []byte, r *metrics.Request) []byte {
		if s := f(r); s != last || enc == nil {
			last, enc = s, jsonString(nil, s)
		}
		return append(b, enc...)
	}}
}

// nullableColumn is a column of a float or null a request (servesim's
// lists, null where the value does not exist).
func nullableColumn(f func(r *metrics.Request) (float64, bool)) *column {
	return &column{nullEmpty: true, elem: func(b []byte, r *metrics.Request) []byte {
		if v, ok := f(r); ok {
			return appendPyNum(b, v)
		}
		return append(b, "null"...)
	}}
}

// intColumn is a column of one integer a request.
func intColumn(f func(r *metrics.Request) int) *column {
	return &column{nullEmpty: true, elem: func(b []byte, r *metrics.Request) []byte {
		return strconv.AppendInt(b, int64(f(r)), 10)
	}}
}
