package jsonobj

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParse checks that Parse accepts only a whole, valid JSON object, and
// that an accepted object marshals to valid JSON that parses back to the
// same members in the same order.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`, ` { } `, `{"a":1}`, `{"b":2,"a":[1,{"x":null}],"c":"s"}`, `{"a":1,"a":2}`,
		`{"date":"2024-01-01","duration":12.5,"completed":100,"ttft":{"p99":0.25}}`,
		`{"\u00e9\ud83d\ude00":"\u0000","":true}`, `{"a":1e400}`, `{"a":-0}`, "{\"\xff\":1}",
		`{"a":1`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, `{1:2}`, `{} {}`, `{}x`, `[]`, `"a"`, `null`, ``, `{`, `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		if !json.Valid(data) || len(bytes.TrimSpace(data)) == 0 || bytes.TrimSpace(data)[0] != '{' {
			t.Fatalf("Parse accepted %q, which is not a JSON object", data)
		}
		b, err := json.Marshal(o)
		if err != nil {
			t.Fatalf("Parse(%q) = %v, which does not marshal: %v", data, o, err)
		}
		back, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse(%q) marshals to %s, which does not parse: %v", data, b, err)
		}
		if len(back) != len(o) {
			t.Fatalf("Parse(%q) has %d members, but its JSON %s has %d", data, len(o), b, len(back))
		}
		// Values are compared by meaning: encoding/json escapes <, > and &
		// when it marshals, so "&" may read back as "\u0026".
		for i, m := range o {
			want, err := decodeValue(m.Value)
			if err != nil {
				t.Fatalf("member %d %q: value %q is not valid JSON: %v", i, m.Key, m.Value, err)
			}
			got, err := decodeValue(back[i].Value)
			if err != nil {
				t.Fatalf("member %d %q reads back as %q, not valid JSON: %v", i, m.Key, back[i].Value, err)
			}
			if back[i].Key != m.Key || !reflect.DeepEqual(got, want) {
				t.Fatalf("member %d: %q: %s reads back as %q: %s", i, m.Key, m.Value, back[i].Key, back[i].Value)
			}
		}
	})
}

// decodeValue reads one JSON value, numbers kept as written.
func decodeValue(raw json.RawMessage) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
