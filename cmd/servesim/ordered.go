package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// A member is one key of a JSON object with its encoded value.
type member struct {
	key string
	val json.RawMessage
}

// object is a JSON object whose keys keep their order.
type object []member

// parseObject reads a JSON object, keeping its keys in order.
func parseObject(data []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
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
		o = append(o, member{key, raw})
	}
	return o, nil
}

// add appends key with v encoded as JSON; non-finite floats become null.
func (o *object) add(key string, v any) error {
	if f, ok := v.(float64); ok && (math.IsNaN(f) || math.IsInf(f, 0)) {
		v = nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	*o = append(*o, member{key, b})
	return nil
}

// take removes key and returns its value, or nil when absent.
func (o *object) take(key string) json.RawMessage {
	for i, m := range *o {
		if m.key == key {
			*o = append((*o)[:i], (*o)[i+1:]...)
			return m.val
		}
	}
	return nil
}

// get returns key's value, or nil when absent.
func (o object) get(key string) json.RawMessage {
	for _, m := range o {
		if m.key == key {
			return m.val
		}
	}
	return nil
}

// set replaces key's value, or appends it.
func (o *object) set(key string, v any) error {
	for i, m := range *o {
		if m.key == key {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			(*o)[i].val = b
			return nil
		}
	}
	return o.add(key, v)
}

// MarshalJSON writes the members in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
