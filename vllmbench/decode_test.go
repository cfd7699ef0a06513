package vllmbench

import (
	"strings"
	"testing"
)

// TestDecodeResults: one object, appended ones, Python's non-finite
// floats, and where a malformed object stops the read.
func TestDecodeResults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in string
		want     []string // the objects, compacted as written
		wantErr  bool
	}{
		{"one", `{"completed": 3}`, []string{`{"completed": 3}`}, false},
		{"appended", "{\"a\":1}\n{\"a\":2}\n", []string{`{"a":1}`, `{"a":2}`}, false},
		{"python floats", `{"burstiness": Infinity, "mean_tpot_ms": NaN, "s": "NaN"}`, []string{`{"burstiness": "inf", "mean_tpot_ms": null, "s": "NaN"}`}, false},
		{"empty", "  \n", nil, false},
		{"bad second", "{\"a\":1}\n{\"a\":}\n", []string{`{"a":1}`}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeResults([]byte(tt.in))
			if (err != nil) != tt.wantErr {
				t.Fatalf("error %v, want error %v", err, tt.wantErr)
			}
			texts := make([]string, len(got))
			for i, raw := range got {
				texts[i] = string(raw)
			}
			if strings.Join(texts, "|") != strings.Join(tt.want, "|") {
				t.Errorf("objects %q, want %q", texts, tt.want)
			}
		})
	}
}
