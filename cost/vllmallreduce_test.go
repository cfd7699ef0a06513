package cost

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roundVLLM is a made-up system with round numbers, so that the expected
// times below are hand arithmetic: 4 ranks fully NVLink-connected (one-shot
// below 512 KiB, two-shot to 8 MiB, symmetric memory to 32 MiB), a PCIe
// peer-to-peer pair at 2 ranks (one-shot below 8 MiB), NCCL otherwise.
func roundVLLM() VLLMAllReduce {
	return VLLMAllReduce{
		Custom: VLLMAllReduceTable{
			{Ranks: 2, CustomMaxBytes: 8 * miB, OneShot: LinkCost{Alpha: 6e-6, Bandwidth: 20e9}},
			{Ranks: 4, CustomMaxBytes: 8 * miB,
				OneShot:         LinkCost{Alpha: 4e-6, Bandwidth: 300e9},
				TwoShot:         LinkCost{Alpha: 8e-6, Bandwidth: 150e9},
				SymmMemMaxBytes: 32 * miB, SymmMem: LinkCost{Alpha: 10e-6, Bandwidth: 300e9}},
		},
		NCCL: AlphaBetaTable{{Alpha: 20e-6, BusBandwidth: 150e9}},
	}
}

func TestVLLMAllReduceDispatch(t *testing.T) {
	t.Parallel()
	v := roundVLLM()
	tests := []struct {
		name  string
		v     VLLMAllReduce
		bytes float64
		ranks int
		want  ARAlgorithm
	}{
		{"4 ranks, small: one-shot", v, 16 * kiB, 4, AROneShot},
		{"4 ranks, just below 512 KiB: one-shot", v, 512*kiB - 16, 4, AROneShot},
		{"4 ranks, 512 KiB: two-shot", v, 512 * kiB, 4, ARTwoShot},
		{"4 ranks, just below the custom max: two-shot", v, 8*miB - 16, 4, ARTwoShot},
		{"4 ranks, the custom max: symmetric memory", v, 8 * miB, 4, ARSymmMem},
		{"4 ranks, the symmetric-memory max is inclusive", v, 32 * miB, 4, ARSymmMem},
		{"4 ranks, above every limit: NCCL", v, 32*miB + 16, 4, ARNCCL},
		{"2 ranks over PCIe P2P stay one-shot to the custom max", v, 8*miB - 16, 2, AROneShot},
		{"2 ranks at the custom max: NCCL (no symmetric memory)", v, 8 * miB, 2, ARNCCL},
		{"3 ranks: vLLM's custom kernel does not run", v, 16 * kiB, 3, ARNCCL},
		{"8 ranks without an entry (not fully connected): NCCL", v, 16 * kiB, 8, ARNCCL},
		{"no peer-to-peer (empty table): NCCL", VLLMAllReduce{}, 16 * kiB, 2, ARNCCL},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.v.Algorithm(tt.bytes, tt.ranks))
		})
	}
}

func TestVLLMAllReduceTime(t *testing.T) {
	t.Parallel()
	v := roundVLLM()
	tests := []struct {
		name  string
		bytes float64
		ranks int
		want  float64
	}{
		// one-shot: α + (p−1)·S/B = 4 µs + 3·300 kB / 300 GB/s
		{"one-shot", 300e3, 4, 4e-6 + 3e-6},
		// two-shot: α + 2(p−1)/p·S/B = 8 µs + 1.5·1 MB / 150 GB/s
		{"two-shot", 1e6, 4, 8e-6 + 10e-6},
		// symmetric memory: 10 µs + 1.5·12 MB / 300 GB/s
		{"symmetric memory", 12e6, 4, 10e-6 + 60e-6},
		// NCCL: 20 µs + 1.5·64 MB / 150 GB/s
		{"NCCL above every limit", 64e6, 4, 20e-6 + 640e-6},
		// PCIe pair: 6 µs + 1·200 kB / 20 GB/s
		{"PCIe pair one-shot", 200e3, 2, 6e-6 + 10e-6},
		// 3 ranks go to NCCL: 20 µs + (4/3)·300 kB / 150 GB/s
		{"3 ranks NCCL", 300e3, 3, 20e-6 + 400e3/150e9},
		{"one rank is free", 1e6, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.InDelta(t, tt.want, v.Time(tt.bytes, tt.ranks), 1e-15)
		})
	}
	assert.True(t, math.IsInf(VLLMAllReduce{}.Time(1e6, 2), 1), "no NCCL model: +Inf")
}

func TestVLLMAllReduceTimeDoesNotAllocate(t *testing.T) {
	v := roundVLLM()
	var sink float64
	assert.Zero(t, testing.AllocsPerRun(100, func() { sink += v.Time(1e6, 4) }))
	assert.Positive(t, sink)
}

func TestVLLMAllReduceValidate(t *testing.T) {
	t.Parallel()
	require.NoError(t, roundVLLM().Validate())
	for _, name := range GPUNames() {
		require.NoError(t, mustGPU(t, name).VLLMAllReduce.Validate(), name)
	}
	tests := []struct {
		name string
		e    VLLMAllReduceParams
		msg  string
	}{
		{"unsupported ranks", VLLMAllReduceParams{Ranks: 3, CustomMaxBytes: 1, OneShot: LinkCost{0, 1}}, "ranks 3 must be 2, 4, 6 or 8"},
		{"no custom max", VLLMAllReduceParams{Ranks: 2, OneShot: LinkCost{0, 1}}, "custom_max_bytes 0"},
		{"no one-shot bandwidth", VLLMAllReduceParams{Ranks: 2, CustomMaxBytes: 1}, "one_shot.bandwidth_bytes_per_s 0"},
		{"two-shot runs but has no price", VLLMAllReduceParams{Ranks: 4, CustomMaxBytes: 8 * miB, OneShot: LinkCost{0, 1}}, "two_shot.bandwidth_bytes_per_s 0"},
		{"symmetric memory without a price", VLLMAllReduceParams{Ranks: 2, CustomMaxBytes: 1, OneShot: LinkCost{0, 1}, SymmMemMaxBytes: 2}, "symm_mem.bandwidth_bytes_per_s 0"},
		{"negative alpha", VLLMAllReduceParams{Ranks: 2, CustomMaxBytes: 1, OneShot: LinkCost{-1, 1}}, "one_shot.alpha_s -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := VLLMAllReduceTable{tt.e}.Validate()
			require.ErrorIs(t, err, ErrInvalidSpec)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
	err := VLLMAllReduceTable{roundVLLM().Custom[0], roundVLLM().Custom[0]}.Validate()
	require.ErrorIs(t, err, ErrInvalidSpec)
	assert.Contains(t, err.Error(), "ranks 2 listed twice")

}
