package disagg_test

import (
	"strings"
	"testing"

	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/disagg"
	"github.com/servesim/servesim/internal/cliflag"
)

// TestFlagsSpec: servesim pd's flags become a Spec (the proxy's overhead
// in seconds, the given engine limits kept), and out-of-range counts are
// parse errors naming the flag.
func TestFlagsSpec(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args  []string
		given map[string]bool
		want  disagg.Spec
		err   string
	}{
		{nil, nil, disagg.Spec{Prefill: 1, Decode: 1, Link: topology.DefaultLinkName}, ""},
		{[]string{"--prefill-instances", "2", "--decode-instances", "3", "--decode-gpu", "a100-80gb", "--decode-tensor-parallel-size", "2",
			"--kv-link", "tcp", "--proxy-overhead-ms", "2.5"}, map[string]bool{"max-num-seqs": true},
			disagg.Spec{Prefill: 2, Decode: 3, DecodeGPU: "a100-80gb", DecodeTP: 2, Link: "tcp", ProxyOverhead: 0.0025, KeepMaxNumSeqs: true}, ""},
		{[]string{"--prefill-instances", "0"}, nil, disagg.Spec{}, "prefill-instances"},
		{[]string{"--decode-instances", "100000"}, nil, disagg.Spec{}, "decode-instances"},
		{[]string{"--proxy-overhead-ms", "-1"}, nil, disagg.Spec{}, "proxy-overhead-ms"},
	}
	for _, tt := range tests {
		var f disagg.Flags
		fs := cliflag.NewFlagSet("pd")
		f.Define(fs)
		err := fs.Parse(tt.args)
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want one naming %s", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case f.Spec(tt.given) != tt.want:
			t.Errorf("%q: %+v, want %+v", tt.args, f.Spec(tt.given), tt.want)
		}
	}
}
