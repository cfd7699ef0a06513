package batching

import (
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/cost/topology"
	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/shareddata"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// llama70BTP4 is Llama-3.1-70B on four H100s with vLLM's defaults.
func llama70BTP4(t *testing.T) Config {
	t.Helper()
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	c := Defaults(m, g)
	c.Deployment.TP = 4
	return c
}

// itl runs three requests one after another (one client, so every output
// gap is one single-sequence decode step) and returns the sorted ITLs.
func itl(t *testing.T, c Config) []float64 {
	t.Helper()
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Clients: 1, Lengths: workload.Fixed{Input: 512, Output: 32}},
		Server:   c, Requests: 3, Seed: 1,
	})
	require.NoError(t, err)
	got := res.ITL().Values()
	slices.Sort(got)
	require.Len(t, got, 3*31)
	return got
}

// TestDeploymentCommReachesSteps: an all-reduce model set on the deployment
// prices every simulated step. Each decode step of one sequence runs 2·80
// all-reduces of 1 · 8192 · 2 B = 16,384 B, so replacing the GPU's default
// (vLLM's one-shot custom all-reduce at 4 ranks, τ = α + (p−1)·S/B with
// α = 4.576 µs, B = 308.9 GB/s, fitted to aiconfigurator's measurements;
// docs/cost-model.md#vllms-all-reduce) by another all-reduce model τ moves
// every ITL by 160 · (τ(16,384) − τ_H100(16,384)), and nothing else.
func TestDeploymentCommReachesSteps(t *testing.T) {
	base := llama70BTP4(t)
	want := itl(t, base)
	const payload = 16_384.0
	tauH100 := 4.576e-6 + 3*payload/308.9e9
	tests := []struct {
		name string
		comm func(t *testing.T) (cost.AllReduce, float64) // and its τ(payload, 4)
	}{
		{"slow α–β link", func(*testing.T) (cost.AllReduce, float64) {
			// 1 ms and 1 GB/s: 1e-3 + 1.5 · 16,384 / 1e9 = 1.024576 ms.
			return cost.AlphaBetaTable{{Ranks: 4, Alpha: 1e-3, BusBandwidth: 1e9}}, 1.024576e-3
		}},
		{"NCCL measurements", func(t *testing.T) (cost.AllReduce, float64) {
			tab, err := topology.LoadNCCLTable(shareddata.Path(t, "h100_dgx_all_reduce.csv"), topology.NCCLOptions{})
			require.NoError(t, err)
			return tab, tab.Time(payload, 4)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			comm, tau := tt.comm(t)
			c := base
			c.Deployment.Comm = comm
			got := itl(t, c)
			shift := 160 * (tau - tauH100)
			require.Greater(t, shift*shift, 1e-12, "the test needs an all-reduce model other than the catalog's")
			for i := range want {
				require.InDelta(t, want[i]+shift, got[i], 1e-12, "ITL %d", i)
			}
		})
	}
}

// TestDeploymentEffReachesSteps: a fitted efficiency profile set on the
// deployment sets the simulated step times: the ITLs of an engine are its
// cost model's decode steps under that profile.
func TestDeploymentEffReachesSteps(t *testing.T) {
	c := llama70BTP4(t)
	c.Deployment.Eff = cost.Efficiency{Bandwidth: 0.5, FLOPs: 0.5, StepOverhead: 3e-3}
	got := itl(t, c)
	sm, err := c.Deployment.Compile()
	require.NoError(t, err)
	var want []float64
	for range 3 {
		for j := 1; j < 32; j++ {
			want = append(want, sm.Step(cost.DecodeBatch(1, float64(512+j))).Time)
		}
	}
	slices.Sort(want)
	assert.InDeltaSlice(t, want, got, 1e-12)
}

// TestConfigRoundTrips: a Config written to JSON or YAML reads back equal;
// the fields that cannot be written (StepTime, Deployment.Comm) are left
// out rather than written half.
func TestConfigRoundTrips(t *testing.T) {
	c := llama70BTP4(t)
	c.Deployment.KVCacheMemory = 20 * cost.GiB
	c.MaxModelLen = 8192
	t.Run("json", func(t *testing.T) {
		data, err := json.Marshal(c)
		require.NoError(t, err)
		var back Config
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, c, back)
	})
	t.Run("yaml", func(t *testing.T) {
		data, err := yaml.Marshal(c)
		require.NoError(t, err)
		var back Config
		require.NoError(t, yaml.Unmarshal(data, &back))
		assert.Equal(t, c, back)
	})
	t.Run("comm is not written", func(t *testing.T) {
		withComm := c
		withComm.Deployment.Comm = cost.AlphaBetaTable{{Alpha: 1e-3, BusBandwidth: 1e9}}
		data, err := json.Marshal(withComm)
		require.NoError(t, err)
		var back Config
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Nil(t, back.Deployment.Comm)
		assert.Equal(t, c, back)
	})
}

// TestErrorsReadAsOneSentence: a configuration error names the field and
// the value once (one line per problem), is a *fielderr.Error at that
// field, and matches ErrInvalid and, for the deployment's errors, cost's
// sentinels.
func TestErrorsReadAsOneSentence(t *testing.T) {
	c := llama70BTP4(t)
	c.MaxNumSeqs = 0
	err := c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	assert.Equal(t, "max_num_seqs: 0 must be >= 1", err.Error())
	fe := fielderr.Of(err)
	require.NotNil(t, fe)
	assert.Equal(t, fielderr.Error{Field: "max_num_seqs", Value: 0, Limit: "must be >= 1"}, *fe)

	c = llama70BTP4(t)
	c.Deployment.TP = 3
	err = c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorIs(t, err, cost.ErrInvalidSpec)
	assert.False(t, errors.Is(err, cost.ErrDoesNotFit))
	assert.Equal(t, "deployment.tp", fielderr.Of(err).Field)
	assert.Equal(t, 3, fielderr.Of(err).Value)
	assert.Equal(t, `deployment.tp: 3 must divide heads 64 of model "llama-3.1-70b"`+"\n"+
		`deployment.tp: 3 must divide intermediate 28672 of model "llama-3.1-70b"`+"\n"+
		`deployment.tp: 3 must divide, or be a multiple of, kv_heads 8 of model "llama-3.1-70b"`, err.Error(), "one line per problem")

	c = llama70BTP4(t)
	c.Deployment.TP = 1
	err = c.Validate()
	require.ErrorIs(t, err, ErrInvalid)
	require.ErrorIs(t, err, cost.ErrDoesNotFit)
	assert.Equal(t, "deployment", fielderr.Of(err).Field, "no one field: the weights fill the GPU")
	assert.Regexp(t, `^deployment: cost: llama-3.1-70b on 1×h100-sxm does not fit: weights 131.4 GiB`, err.Error())
}

// vllm serve's defaults follow the GPU: large non-A100 cards get 1024
// sequences and 8192 tokens a step.
func TestServeDefaults(t *testing.T) {
	t.Parallel()
	for name, want := range map[string][2]int{
		"h100-sxm": {1024, 8192}, "h200": {1024, 8192}, "mi300x": {1024, 8192},
		"a100-80gb": {256, 2048}, "l40s": {256, 2048}, "rtx4090": {256, 2048},
	} {
		g, err := cost.GPU(name)
		if err != nil {
			t.Fatal(err)
		}
		if s, b := ServeDefaults(g); s != want[0] || b != want[1] {
			t.Errorf("%s: ServeDefaults = %d, %d; want %d, %d", name, s, b, want[0], want[1])
		}
	}
}
