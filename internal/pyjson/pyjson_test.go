package pyjson

import (
	"encoding/json"
	"fmt"
	"testing"
)

func TestStandard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{`{"a": 1}`, `{"a": 1}`},
		{`{"mean_tpot_ms": NaN, "burstiness": Infinity, "x": -Infinity}`, `{"mean_tpot_ms": null, "burstiness": "inf", "x": "-inf"}`},
		{`[NaN,Infinity,-Infinity,-1]`, `[null,"inf","-inf",-1]`},
		{`{"text": "NaN Infinity -Infinity \"NaN\" \\"}`, `{"text": "NaN Infinity -Infinity \"NaN\" \\"}`},
		{`{"t": "a\\", "v": NaN}`, `{"t": "a\\", "v": null}`},
		{`{"v": Nope}`, `{"v": Nope}`}, // not a Python token: left for encoding/json to refuse
		{`Infin`, `Infin`},
	} {
		if got := string(Standard([]byte(tc.in))); got != tc.want {
			t.Errorf("Standard(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	var v map[string]any
	if err := json.Unmarshal(Standard([]byte(`{"a": NaN, "b": [Infinity]}`)), &v); err != nil {
		t.Errorf("rewritten Python JSON does not decode: %v", err)
	}
}

// FuzzStandard: any bytes, no panic; valid JSON comes back unchanged
// (bare NaN and Infinity are never valid JSON, so there is nothing to
// rewrite in it); the rewrite is idempotent.
func FuzzStandard(f *testing.F) {
	f.Add(`{"a": NaN, "s": "NaN\"Infinity", "b": -Infinity}`)
	f.Add(`[1, "x\\", Infinity]`)
	f.Fuzz(func(t *testing.T, s string) {
		out := Standard([]byte(s))
		if json.Valid([]byte(s)) && string(out) != s {
			t.Fatalf("valid JSON changed: %q -> %q", s, out)
		}
		if again := Standard(out); string(again) != string(out) {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}

func ExampleStandard() {
	fmt.Println(string(Standard([]byte(`{"burstiness": Infinity, "mean_tpot_ms": NaN, "label": "NaN"}`))))
	// Output: {"burstiness": "inf", "mean_tpot_ms": null, "label": "NaN"}
}
