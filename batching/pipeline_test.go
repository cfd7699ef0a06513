package batching

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/sim"
	"github.com/servesim/servesim/workload"
)

// stepEngine is a model-free engine whose every step takes t seconds.
func stepEngine(t float64, maxSeqs int) Config {
	return Config{
		Deployment:          cost.Deployment{TP: 1},
		MaxNumSeqs:          maxSeqs,
		MaxNumBatchedTokens: 4096, EnableChunkedPrefill: true, BlockSize: 16,
		KVBlocks: 1 << 12, StepTime: func(cost.Batch) float64 { return t },
	}
}

// makespan runs m single-step requests (prefill only, one output token)
// sent at once and returns when the last one finished.
func makespan(t *testing.T, srv sim.ServerConfig, m int) float64 {
	end, _ := makespanBusy(t, srv, m)
	return end
}

// makespanBusy is makespan with the server's busy_fraction.
func makespanBusy(t *testing.T, srv sim.ServerConfig, m int) (float64, float64) {
	t.Helper()
	res, err := sim.Run(sim.Config{
		Workload: workload.Workload{Arrivals: workload.Replay{Times: make([]float64, m)}, Lengths: workload.Fixed{Input: 100, Output: 1}},
		Server:   srv, Requests: m, Seed: 1,
	})
	require.NoError(t, err)
	require.Equal(t, m, res.Completed)
	end := 0.0
	for _, r := range res.Requests {
		end = max(end, r.Done)
	}
	busy, _ := res.Stat("busy_fraction")
	return end, busy
}

// TestPipelineBubble checks the pipeline's throughput against the
// pipelining identity: k balanced stages fed m micro-batches at once
// finish them in (m+k−1) stage times, so the throughput is k·m/(m+k−1)
// times that of the unpipelined engine, which runs them one whole-model
// step each. One request per micro-batch (max_num_seqs 1), no
// activation cost.
func TestPipelineBubble(t *testing.T) {
	const step = 0.012 // s, the whole model's step
	free := cost.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, tc := range []struct{ k, m int }{{1, 5}, {2, 1}, {2, 7}, {4, 1}, {4, 3}, {4, 4}, {4, 13}, {8, 8}} {
		plain := makespan(t, stepEngine(step, 1), tc.m)
		assert.InDelta(t, float64(tc.m)*step, plain, 1e-12)
		pp, busy := makespanBusy(t, Pipeline{Engine: stepEngine(step, 1), Stages: tc.k, ActivationLink: free}, tc.m)
		want := float64(tc.k*tc.m) / float64(tc.m+tc.k-1)
		assert.InDelta(t, want, plain/pp, 1e-9, "k=%d m=%d", tc.k, tc.m)
		// Each stage works m stage times of the m+k−1 the run lasts.
		assert.InDelta(t, float64(tc.m)/float64(tc.m+tc.k-1), busy, 1e-9, "k=%d m=%d busy", tc.k, tc.m)
	}
}

// TestPipelineActivationHop: an isolated micro-batch crosses k−1 links,
// each α + tokens·hidden/TP·act_bytes/B.
func TestPipelineActivationHop(t *testing.T) {
	const step = 0.010
	link := cost.Link{Name: "x", Bandwidth: 1e9, Latency: 1e-4}
	c := stepEngine(step, 1)
	c.Deployment.Model = cost.ModelSpec{Hidden: 4096, ActBytes: 2}
	c.Deployment.TP = 2
	got := makespan(t, Pipeline{Engine: c, Stages: 4, ActivationLink: link}, 1)
	hop := 1e-4 + 100*4096/2*2/1e9
	assert.InDelta(t, step+3*hop, got, 1e-12)
}

// TestPipelineMemory: a 70B model that does not fit one H100 at TP 1
// fits in four stages, each holding a quarter of the layers, and the
// stage's KV pool is split over the virtual engines.
func TestPipelineMemory(t *testing.T) {
	m, err := cost.Model("llama-3.1-70b")
	require.NoError(t, err)
	g, err := cost.GPU("h100-sxm")
	require.NoError(t, err)
	c := Defaults(m, g)
	require.Error(t, c.Validate())
	p := Pipeline{Engine: c, Stages: 4}
	require.NoError(t, p.Validate())
	st, err := p.Stage()
	require.NoError(t, err)
	assert.Equal(t, 20, st.Deployment.Model.Layers)
	whole := st
	whole.KVBlocks = 0
	wp, err := whole.Pool()
	require.NoError(t, err)
	vp, err := st.Pool()
	require.NoError(t, err)
	assert.Equal(t, wp.Blocks/4, vp.Blocks)
	// The stage's weights are a quarter of the layers' plus the whole
	// embedding and LM head (untied: two vocab × hidden matrices).
	embed := 2 * m.EmbeddingParams() * m.WeightBytes / m.WeightBytesTotal()
	frac := st.Deployment.WeightBytesPerRank() / c.Deployment.WeightBytesPerRank()
	assert.InDelta(t, 0.25+0.75*embed, frac, 1e-3)
	assert.Equal(t, 4, p.GPUs())
}

func TestPipelineValidate(t *testing.T) {
	c := stepEngine(0.01, 1)
	for _, tc := range []struct {
		p    Pipeline
		want string
	}{
		{Pipeline{Engine: c, Stages: 0}, "pipeline_parallel_size: 0 must be in [1, 64]"},
		{Pipeline{Engine: c, Stages: 65}, "pipeline_parallel_size: 65 must be in [1, 64]"},
		{Pipeline{Engine: c, Stages: 2, ActivationLink: cost.Link{Name: "bad", Bandwidth: math.NaN()}}, "bandwidth_bytes_per_s NaN"},
	} {
		err := tc.p.Validate()
		require.Error(t, err)
		assert.ErrorIs(t, err, ErrInvalid)
		assert.Contains(t, err.Error(), tc.want)
	}
}

// TestPipelineReplicas: two pipelines of k stages behind the
// least-outstanding router split m simultaneous single-step requests
// evenly, so they finish in (m/2 + k − 1) stage times, the bubble
// identity of one pipeline fed m/2; busy_fraction is a stage's, over the
// pipelines: (m/2)/(m/2 + k − 1).
func TestPipelineReplicas(t *testing.T) {
	const step = 0.012
	free := cost.Link{Name: "free", Bandwidth: 1, Latency: 0}
	for _, tc := range []struct{ k, m int }{{2, 8}, {4, 6}, {3, 2}} {
		for _, router := range []Router{"", RoundRobin} {
			p := Pipeline{Engine: stepEngine(step, 1), Stages: tc.k, ActivationLink: free, Replicas: 2, Router: router}
			assert.Equal(t, 2*tc.k, p.GPUs())
			end, busy := makespanBusy(t, p, tc.m)
			half := float64(tc.m / 2)
			assert.InDelta(t, (half+float64(tc.k)-1)*step/float64(tc.k), end, 1e-12, "k=%d m=%d %s", tc.k, tc.m, router)
			assert.InDelta(t, half/(half+float64(tc.k)-1), busy, 1e-9, "k=%d m=%d busy", tc.k, tc.m)
		}
	}
	bad := Pipeline{Engine: stepEngine(step, 1), Stages: 2, Replicas: -1}
	require.ErrorContains(t, bad.Validate(), "pipeline_replicas: -1 must be in [0, 1024]")
	bad = Pipeline{Engine: stepEngine(step, 1), Stages: 2, Router: PrefixAware}
	require.ErrorContains(t, bad.Validate(), `pipeline_router: prefix-aware must be`)
}
