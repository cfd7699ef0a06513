package calibrate_test

import (
	"io"
	"slices"
	"testing"

	"github.com/servesim/servesim/calibrate"
	"github.com/servesim/servesim/internal/cliflag"
)

// TestFlagsResolve: calibrate's own flags fill the Config, the borrowed
// vllm serve flags its Server, and ServerSet lists those given (aliases
// by the name given); a serve flag outside calibrate's list is unknown.
func TestFlagsResolve(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		set  []string
		seqs int
		err  bool
	}{
		{[]string{"--gpu", "h100-sxm", "-o", "p.yaml"}, nil, 0, false},
		{[]string{"--max-num-seqs", "64", "--q", "fp8", "--quiet"}, []string{"max-num-seqs", "q"}, 64, false},
		{[]string{"--request-rate", "4"}, nil, 0, true},
	}
	for _, tt := range tests {
		var f calibrate.Flags
		fs := cliflag.NewFlagSet("calibrate")
		groups := f.Define(fs)
		if len(groups) != 2 {
			t.Fatalf("%d help groups, want calibrate's and the serve flags'", len(groups))
		}
		err := fs.Parse(tt.args)
		if tt.err {
			if err == nil {
				t.Errorf("%q: parsed; want an unknown flag", tt.args)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if err := f.Resolve(fs, io.Discard); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if !slices.Equal(f.ServerSet, tt.set) || f.Server.MaxNumSeqs != tt.seqs {
			t.Errorf("%q: ServerSet %q, max_num_seqs %d; want %q, %d", tt.args, f.ServerSet, f.Server.MaxNumSeqs, tt.set, tt.seqs)
		}
	}
	var f calibrate.Flags
	fs := cliflag.NewFlagSet("calibrate")
	f.Define(fs)
	if err := fs.Parse([]string{"--gpu", "a100-80gb", "--tensor-parallel-size", "2", "-o", "p.yaml", "--joint"}); err != nil {
		t.Fatal(err)
	}
	if f.GPU != "a100-80gb" || f.TP != 2 || f.Out != "p.yaml" || !f.Joint {
		t.Errorf("Config %+v", f.Config)
	}
}
