package workload

import (
	"testing"

	"github.com/servesim/servesim/distribution"
	"github.com/servesim/servesim/fielderr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkloadValidate(t *testing.T) {
	t.Parallel()
	lengths := Fixed{Input: 512, Output: 64}
	tests := []struct {
		name string
		w    Workload
		want string
	}{
		{"neither loop", Workload{Lengths: lengths}, "neither arrivals (open loop) nor clients (closed loop) is set"},
		{"both loops", Workload{Arrivals: Poisson{Rate: 1}, Clients: 2, Lengths: lengths}, "clients: 2 is set beside arrivals: both arrivals and clients are set; choose open or closed loop"},
		{"clients negative", Workload{Clients: -1, Lengths: lengths}, "clients: -1 must be > 0"},
		{"max_concurrency negative", Workload{Arrivals: Poisson{Rate: 1}, MaxConcurrency: -1, Lengths: lengths}, "max_concurrency: -1 must be >= 0"},
		{"too many clients", Workload{Clients: MaxClients + 1, Lengths: lengths}, "clients: 1000001 exceeds MaxClients 1000000 (a run holds an event per client from time 0)"},
		{"max_concurrency with clients", Workload{Clients: 4, MaxConcurrency: 2, Lengths: lengths}, "max_concurrency: 2 applies to open loops; a closed loop's concurrency is clients 4"},
		{"think with open loop", Workload{Arrivals: Poisson{Rate: 1}, Think: distribution.Exponential{Rate: 1}, Lengths: lengths}, "think time applies to closed loops only"},
		{"think invalid", Workload{Clients: 1, Think: distribution.Exponential{Rate: 0}, Lengths: lengths}, "think.exponential.rate: 0 must be a finite number > 0"},
		{"lengths nil", Workload{Arrivals: Poisson{Rate: 1}}, "lengths: are not set"},
		{"lengths nil closed", Workload{Clients: 3}, "lengths: are not set"},
		{"arrivals invalid", Workload{Arrivals: Poisson{Rate: 0}, Lengths: lengths}, "poisson.rate: 0 must be a finite number > 0"},
		{"lengths invalid", Workload{Clients: 1, Lengths: Fixed{Input: 1, Output: 0}}, "fixed.output: 0 must be >= 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.w.Validate()
			require.ErrorIs(t, err, ErrInvalid)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestWorkloadValidateThinkWrapsDist(t *testing.T) {
	t.Parallel()
	err := Workload{Clients: 1, Think: distribution.Uniform{Min: 2, Max: 1}, Lengths: Fixed{Output: 1}}.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorIs(t, err, distribution.ErrInvalid)
}

func TestWorkloadValidateAccepts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		w      Workload
		closed bool
	}{
		{"open", Workload{Arrivals: Poisson{Rate: 2}, Lengths: Fixed{Input: 10, Output: 1}}, false},
		{"open capped", Workload{Arrivals: Gamma{Rate: 2, Burstiness: 0.5}, MaxConcurrency: 8, Lengths: Random{InputLen: 100, OutputLen: 10, RangeRatio: 0.5}}, false},
		{"closed", Workload{Clients: 16, Lengths: Fixed{Input: 0, Output: 1}}, true},
		{"closed with think", Workload{Clients: 1, Think: distribution.Deterministic{Value: 0.5}, Lengths: Fixed{Input: 1, Output: 1}}, true},
		{"trace replay", Trace{Rows: []TraceRow{{Time: 0, Input: 3, Output: 0}, {Time: 1, Input: 4, Output: 5}}}.Workload(2), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tt.w.Validate())
			assert.Equal(t, tt.closed, tt.w.Closed())
		})
	}
}

// TestWorkloadValidateFieldErrors: Validate's errors are *fielderr.Errors
// matching ErrInvalid, at Workload's own fields or at a process's or a
// length law's kind.parameter, with the value given.
func TestWorkloadValidateFieldErrors(t *testing.T) {
	t.Parallel()
	lengths := Fixed{Input: 512, Output: 64}
	open := Poisson{Rate: 1}
	tests := []struct {
		name  string
		v     interface{ Validate() error }
		field string
		value any
	}{
		{"clients", Workload{Clients: -1, Lengths: lengths}, "clients", -1},
		{"neither loop", Workload{Lengths: lengths}, "arrivals", nil},
		{"both loops", Workload{Arrivals: open, Clients: 2, Lengths: lengths}, "clients", 2},
		{"max_concurrency", Workload{Arrivals: open, MaxConcurrency: -3, Lengths: lengths}, "max_concurrency", -3},
		{"think", Workload{Clients: 1, Think: distribution.Exponential{Rate: -1}, Lengths: lengths}, "think.exponential.rate", -1.0},
		{"lengths", Workload{Arrivals: open}, "lengths", nil},
		{"arrival rate", Workload{Arrivals: Gamma{Rate: 1e-9, Burstiness: 1}, Lengths: lengths}, "gamma.rate", 1e-9},
		{"ramp strategy", Ramp{Start: 1, End: 2, Strategy: "cubic"}, "ramp.strategy", "cubic"},
		{"replay times", Replay{Times: []float64{0, 2, 1}}, "replay.times[2]", 1.0},
		{"fixed output", Fixed{Input: 1, Output: 0}, "fixed.output", 0},
		{"random output_len", Random{InputLen: 1, OutputLen: MaxTokens/2 + 1}, "random.output_len", MaxTokens/2 + 1},
		{"lognormal cap", LogNormal{InputMedian: 1, OutputMedian: 1, OutputMax: -1}, "lognormal.output_max", -1},
		{"empirical pair", Empirical{Pairs: []Pair{{1, 1}, {-4, 1}}}, "empirical.pairs[1].input", -4},
		{"sequence blocks", Sequence{Pairs: []Pair{{1, 1}}, Blocks: [][]int64{{1}}, BlockSize: 0}, "sequence.block_size", 0},
		{"quantile probs", QuantileTable{Probs: []float64{0, 0.5, 0.5, 1}, Input: []float64{1, 2, 3, 4}, Output: []float64{1, 2, 3, 4}}, "quantile_table.probs[2]", 0.5},
		{"prefix", SharedPrefix{Tokens: -1, Lengths: lengths}, "shared_prefix.tokens", -1},
		{"prefix repetition", PrefixRepetition{NumPrefixes: 0, OutputLen: 1}, "prefix_repetition.num_prefixes", 0},
		{"sessions", Sessions{Turns: distribution.Deterministic{Value: 2}, SystemPrompt: -5}, "sessions.system_prompt", -5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.v.Validate()
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "Validate() = %v, want a *fielderr.Error", err)
			assert.Equal(t, tt.field, fe.Field, "%v", err)
			assert.Equal(t, tt.value, fe.Value, "%v", err)
			assert.ErrorIs(t, err, ErrInvalid)
		})
	}
}
