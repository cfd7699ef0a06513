package workload

import (
	"testing"

	"github.com/servesim/servesim/distribution"
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
		{"both loops", Workload{Arrivals: Poisson{Rate: 1}, Clients: 2, Lengths: lengths}, "both arrivals and clients 2 are set"},
		{"clients negative", Workload{Clients: -1, Lengths: lengths}, "clients -1 must be > 0"},
		{"max_concurrency negative", Workload{Arrivals: Poisson{Rate: 1}, MaxConcurrency: -1, Lengths: lengths}, "max_concurrency -1 must be >= 0"},
		{"too many clients", Workload{Clients: MaxClients + 1, Lengths: lengths}, "clients 1000001 exceeds MaxClients 1000000"},
		{"max_concurrency with clients", Workload{Clients: 4, MaxConcurrency: 2, Lengths: lengths}, "max_concurrency 2 applies to open loops; a closed loop's concurrency is clients 4"},
		{"think with open loop", Workload{Arrivals: Poisson{Rate: 1}, Think: distribution.Exponential{Rate: 1}, Lengths: lengths}, "think time applies to closed loops only"},
		{"think invalid", Workload{Clients: 1, Think: distribution.Exponential{Rate: 0}, Lengths: lengths}, "think: exponential.rate: 0 must be a finite number > 0"},
		{"lengths nil", Workload{Arrivals: Poisson{Rate: 1}}, "lengths are not set"},
		{"lengths nil closed", Workload{Clients: 3}, "lengths are not set"},
		{"arrivals invalid", Workload{Arrivals: Poisson{Rate: 0}, Lengths: lengths}, "poisson rate 0"},
		{"lengths invalid", Workload{Clients: 1, Lengths: Fixed{Input: 1, Output: 0}}, "fixed output 0"},
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
