// Package jsonobj is a JSON object whose keys keep their order: results
// are written with a fixed key order, so equal results give identical
// bytes, and a result file read back keeps the order it was written in.
package jsonobj

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// A Member is one key of an Object with its encoded value.
type Member struct {
	Key   string
	Value json.RawMessage
}

// Object is a JSON object whose keys keep their order.
type Object []Member

// Parse reads a JSON object, keeping its keys in order. data must hold
// the one object and nothing else but white space.
func Parse(data []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o Object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o = append(o, Member{key, raw})
	}
	// The closing brace, then nothing: a truncated object ("{\"a\":1") or
	// trailing data ("{} {}") is an error, as for json.Unmarshal.
	if _, err := dec.Token(); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("invalid JSON: data after the object at offset %d", dec.InputOffset())
		}
		return nil, err
	}
	return o, nil
}

// Add appends key with v encoded as JSON; non-finite floats become null.
func (o *Object) Add(key string, v any) error {
	b, err := encode(key, v)
	if err != nil {
		return err
	}
	*o = append(*o, Member{key, b})
	return nil
}

// encode marshals v, writing non-finite floats as null.
func encode(key string, v any) (json.RawMessage, error) {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		v = nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return b, nil
}

// Take removes key and returns its value, or nil when absent.
func (o *Object) Take(key string) json.RawMessage {
	for i, m := range *o {
		if m.Key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return m.Value
		}
	}
	return nil
}

// Get returns key's value, or nil when absent.
func (o Object) Get(key string) json.RawMessage {
	for _, m := range o {
		if m.Key == key {
			return m.Value
		}
	}
	return nil
}

// Set replaces key's value, or appends it.
func (o *Object) Set(key string, v any) error {
	for i, m := range *o {
		if m.Key == key {
			b, err := encode(key, v)
			if err != nil {
				return err
			}
			(*o)[i].Value = b
			return nil
		}
	}
	return o.Add(key, v)
}

// MarshalJSON writes the members in order.
func (o Object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.Key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.Value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
