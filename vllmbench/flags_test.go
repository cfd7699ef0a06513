package vllmbench

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/sim"
)

// TestFlagFieldError: a scenario field a flag sets is named by the flag,
// with no file or line; a field no flag sets keeps its path; an error
// with no field reads as it is, wrapped or not.
func TestFlagFieldError(t *testing.T) {
	t.Parallel()
	inFile := func(fe *fielderr.Error) *fielderr.Error { fe.File, fe.Line = "bench.yaml", 3; return fe }
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"flag", inFile(fielderr.New("server.max_num_seqs", 0, "must be >= 1")), "--max-num-seqs: 0 must be >= 1"},
		{"wrapped", fmt.Errorf("bench: %w", fielderr.New("workload.arrival.rate", -1.0, "must be > 0")), "--request-rate: -1 must be > 0"},
		{"no flag", fielderr.New("server.engine.block_size", 7, "must be a power of 2"), "server.engine.block_size: 7 must be a power of 2"},
		{"no field", errors.New("no SLO"), "no SLO"},
	}
	for _, tt := range tests {
		if got := FlagFieldError(tt.err); got != tt.want {
			t.Errorf("%s: FlagFieldError = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestStoppedEarlyWarns: a run stopped at its backlog cap says so on
// stderr, with the counts its statistics cover.
func TestStoppedEarlyWarns(t *testing.T) {
	t.Parallel()
	o := Flags{Options: Defaults(true), Quiet: true}
	o.NumPrompts, o.RandomInputLen, o.RandomOutputLen, o.RequestRate = 10, 8, 8, 1
	o.PercentileMetrics = "ttft"
	sc, err := o.Scenario()
	if err != nil {
		t.Fatal(err)
	}
	res := &sim.Result{StoppedBy: sim.StopMaxInSystem}
	res.Stability.Reason = "requests in the system reached max_in_system 10000000"
	res.Measured, res.Completed = 10000000, 3
	var b bytes.Buffer
	WriteFailures(&b, o.Quiet, sc, res)
	want := "servesim: warning: the run stopped early (requests in the system reached max_in_system 10000000): the statistics cover the 3 measured requests that ended, of 10000000 sent\n"
	if b.String() != want {
		t.Errorf("stderr %q, want %q", b.String(), want)
	}
}
