package cost

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExpectedDistinctExpertsMatchesMonteCarlo checks E·(1 − (1 − k/E)^T)
// against a simulation of uniform top-k routing: each of T tokens picks k
// distinct experts of E at random (a partial Fisher–Yates shuffle), and the
// mean number of distinct experts over R steps must lie within 4 standard
// errors of the formula.
func TestExpectedDistinctExpertsMatchesMonteCarlo(t *testing.T) {
	t.Parallel()
	tests := []struct{ experts, k, tokens int }{
		{8, 2, 1}, {8, 2, 3}, {8, 2, 10}, // Mixtral
		{128, 8, 1}, {128, 8, 4}, {128, 8, 16}, {128, 8, 64}, {128, 8, 128}, // Qwen3 MoE
		{384, 8, 32}, // Kimi-K2
	}
	const reps = 4000
	for _, tt := range tests {
		m := ModelSpec{Experts: tt.experts, ExpertsPerToken: tt.k}
		want := m.expectedDistinctExperts(float64(tt.tokens))
		rng := rand.New(rand.NewPCG(uint64(tt.experts), uint64(tt.tokens)))
		perm := make([]int, tt.experts)
		for i := range perm {
			perm[i] = i
		}
		touched := make([]bool, tt.experts)
		var sum, sumSq float64
		for range reps {
			clear(touched)
			n := 0
			for range tt.tokens {
				for j := range tt.k { // perm[:k] becomes a uniform k-subset
					r := j + rng.IntN(tt.experts-j)
					perm[j], perm[r] = perm[r], perm[j]
					if !touched[perm[j]] {
						touched[perm[j]] = true
						n++
					}
				}
			}
			sum += float64(n)
			sumSq += float64(n * n)
		}
		mean := sum / reps
		se := math.Sqrt((sumSq/reps - mean*mean) / reps)
		assert.InDelta(t, want, mean, 4*se+1e-9, "E=%d k=%d T=%d: formula %.3f, simulated %.3f ± %.3f", tt.experts, tt.k, tt.tokens, want, mean, se)
	}
}

func TestExpectedDistinctExpertsLimits(t *testing.T) {
	t.Parallel()
	m := ModelSpec{Experts: 128, ExpertsPerToken: 8}
	assert.InEpsilon(t, 8.0, m.expectedDistinctExperts(1), 1e-12, "one token touches its k experts")
	assert.InEpsilon(t, 128.0, m.expectedDistinctExperts(1e5), 1e-12, "many tokens touch them all")
	assert.Zero(t, m.expectedDistinctExperts(0))
	assert.Zero(t, ModelSpec{}.expectedDistinctExperts(10), "dense")
	all := ModelSpec{Experts: 4, ExpertsPerToken: 4}
	assert.Equal(t, 4.0, all.expectedDistinctExperts(1), "k = E")
}

// qwen30B is Qwen3-30B-A3B's shape (its config.json), written out so the
// step arithmetic below can be followed by hand.
func qwen30B() ModelSpec {
	return bf16Model(ModelSpec{Name: "qwen3-30b-a3b", Hidden: 2048, Intermediate: 6144, Layers: 48, Heads: 32,
		KVHeads: 4, HeadDim: 128, Vocab: 151936, Experts: 128, ExpertsPerToken: 8, ExpertIntermediate: 768})
}

// TestMoEStepDecodeArithmetic: one decode token of Qwen3-30B-A3B on one
// GPU reads the non-expert weights and its 8 experts per layer, and
// computes 2 FLOPs per weight it reads.
func TestMoEStepDecodeArithmetic(t *testing.T) {
	t.Parallel()
	d := Deployment{Model: qwen30B(), GPU: mustGPU(t, "h100-sxm"), TP: 1}
	require.NoError(t, d.Validate())
	const (
		attention = 2*2048*4096 + 2*2048*512 // Q, O: 2048×4096; K, V: 2048×512 → 18,874,368 per layer
		router    = 128 * 2048               // 262,144 per layer
		lmHead    = 151936 * 2048            // 311,164,928
		expert    = 3 * 2048 * 768           // 4,718,592
		static    = 48*(attention+router) + lmHead
		active    = 48 * 8 * expert // 1,811,939,328
	)
	s := d.Step(DecodeBatch(1, 0))
	assert.InEpsilon(t, 2.0*(static+active), s.WeightBytes, 1e-12, "6,083,313,664 bytes")
	assert.InEpsilon(t, 2.0*(static+active), s.ProjFLOPs, 1e-12, "2 FLOPs per weight read")

	many := d.Step(DecodeBatch(256, 0))
	want := 2.0 * (static + 48*128*expert*(1-math.Pow(1-8.0/128, 256)))
	assert.InEpsilon(t, want, many.WeightBytes, 1e-12, "256 tokens touch 128·(1 − (15/16)^256) experts per layer")
	assert.InEpsilon(t, 2.0*256*(static+active), many.ProjFLOPs, 1e-12, "FLOPs: k experts per token")

	huge := d.Step(DecodeBatch(100000, 0))
	assert.InEpsilon(t, d.Model.MatmulWeightBytes(), huge.WeightBytes, 1e-12, "every expert")
}

// TestExpertGEMMPricesExpertsAtTheirPeak: with ExpertGEMM FP4 on B200 (FP4
// peak 9 PFLOP/s, BF16 2.25), a prefill step's routed-expert FLOPs run at
// the FP4 peak and the rest (attention, routers, LM head) at the BF16 one;
// unset, every GEMM runs at the BF16 peak. The weights keep their bytes,
// so only the compute time moves. The FLOPs are the hand count of
// TestMoEStepDecodeArithmetic.
func TestExpertGEMMPricesExpertsAtTheirPeak(t *testing.T) {
	t.Parallel()
	const (
		attention = 2*2048*4096 + 2*2048*512
		router    = 128 * 2048
		lmHead    = 151936 * 2048
		expert    = 3 * 2048 * 768
		tokens    = 8192
		dense     = 2 * (tokens*48*(attention+router) + lmHead) // one sequence samples
		routed    = 2 * tokens * 48 * 8 * expert
		bf16      = 2.25e15
		fp4       = 9e15
	)
	eff := Efficiency{Bandwidth: 1, FLOPs: 1}
	batch := Batch{PrefillTokens: tokens, PrefillSeqs: 1}
	m := qwen30B()
	m.GEMM = BF16
	d := Deployment{Model: m, GPU: mustGPU(t, "b200"), TP: 1, Eff: eff}
	require.NoError(t, d.Validate())
	all16 := d.Step(batch)
	assert.InEpsilon(t, (dense+routed)/bf16, all16.ComputeTime, 1e-12)
	d.Model.ExpertGEMM = FP4
	require.NoError(t, d.Validate())
	mixed := d.Step(batch)
	assert.InEpsilon(t, dense/bf16+routed/fp4, mixed.ComputeTime, 1e-12)
	assert.Equal(t, all16.FLOPs, mixed.FLOPs, "the FLOPs counted do not change")
	// At full efficiency a compute-bound step runs every FLOP at its peak:
	// MFU 1, not the FP4 FLOPs over the BF16 peak.
	assert.InEpsilon(t, 1, all16.MFU, 1e-12)
	assert.InEpsilon(t, 1, mixed.MFU, 1e-12)
	assert.Equal(t, all16.MemoryTime, mixed.MemoryTime, "nor the bytes")
	d.Model.ExpertGEMM = BF16
	assert.Equal(t, all16, d.Step(batch), "ExpertGEMM equal to GEMM changes nothing")

	// With a fused-MoE entry the experts' time depends on their precision
	// alone: NVFP4 experts cost the same beside BF16 or NVFP4 attention.
	prof, err := embeddedProfile("b200")
	require.NoError(t, err)
	allFP4 := qwen30B()
	allFP4.GEMM = FP4
	withFP4 := Deployment{Model: allFP4, GPU: mustGPU(t, "b200"), TP: 1, Profile: &prof}
	mixedFP4 := withFP4
	mixedFP4.Model.GEMM, mixedFP4.Model.ExpertGEMM = BF16, FP4
	for _, tokens := range []int{1, 64, 8192} {
		b := Batch{PrefillTokens: tokens, PrefillSeqs: 1}
		got, want := mixedFP4.Step(b), withFP4.Step(b)
		assert.Positive(t, want.MoETime)
		assert.InEpsilon(t, want.MoETime, got.MoETime, 1e-12, "%d tokens", tokens)
		assert.LessOrEqual(t, got.MFU, 1.0, "%d tokens", tokens)
	}

	dense16 := qwen30B()
	dense16.Experts, dense16.ExpertsPerToken, dense16.ExpertIntermediate = 0, 0, 0
	dense16.ExpertGEMM = FP4
	err = dense16.Validate()
	requireProblem(t, err, "expert_gemm", "nvfp4", "is set on a dense model")
}

// TestMoEWeightsPerRankHoldEveryExpert: the resident weights are the whole
// model split over the ranks, whatever the split of the experts.
func TestMoEWeightsPerRankHoldEveryExpert(t *testing.T) {
	t.Parallel()
	m := qwen30B()
	g := mustGPU(t, "h100-sxm")
	total := m.WeightBytesTotal()
	tp4 := Deployment{Model: m, GPU: g, TP: 4}
	ep4 := Deployment{Model: m, GPU: g, TP: 4, EP: 4}
	require.NoError(t, ep4.Validate())
	router := 48.0 * 128 * 2048 * 2 // replicated on every rank
	assert.InEpsilon(t, (total-router)/4+router, tp4.WeightBytesPerRank(), 1e-12)
	assert.Equal(t, tp4.WeightBytesPerRank(), ep4.WeightBytesPerRank(), "EP moves experts, not bytes")

	dp4 := Deployment{Model: m, GPU: g, TP: 1, DP: 4, EP: 4}
	require.NoError(t, dp4.Validate())
	assert.Equal(t, 4, dp4.GPUs())
	routed := m.routedExpertParams() * 2
	assert.InEpsilon(t, total-routed+routed/4, dp4.WeightBytesPerRank(), 1e-12, "attention whole on each DP rank, experts split 4 ways")
}

// TestMoEDataParallelStep: with D attention groups, the experts of a rank
// see the tokens of every group, and each MoE layer exchanges D·T·H·e_a
// bytes across the groups.
func TestMoEDataParallelStep(t *testing.T) {
	t.Parallel()
	g := mustGPU(t, "h100-sxm")
	d := Deployment{Model: qwen30B(), GPU: g, TP: 1, DP: 4, EP: 4}
	s := d.Step(DecodeBatch(8, 0))
	expert := 3.0 * 2048 * 768 * 2
	experts := 48 * 32 * (1 - math.Pow(1-8.0/128, 4*8)) * expert // 32 local experts, 32 tokens across the groups
	one := Deployment{Model: qwen30B(), GPU: g, TP: 1}
	static := one.Step(DecodeBatch(8, 0)).WeightBytes - 48*128*(1-math.Pow(1-8.0/128, 8))*expert
	assert.InEpsilon(t, static+experts, s.WeightBytes, 1e-12)

	payload := 4 * 8 * 2048 * 2.0 // D·T·H·e_a
	assert.InEpsilon(t, 48*2*3.0/4*payload, s.CommBytes, 1e-12, "48 exchanges of 2(D−1)/D·payload")
	ab, ok := g.AllReduce.Params(4)
	require.True(t, ok)
	assert.InEpsilon(t, 48*ab.Time(payload, 4), s.CommTime, 1e-12)
}

func TestMoEDeploymentValidate(t *testing.T) {
	t.Parallel()
	g := mustGPU(t, "h100-sxm")
	tests := []struct {
		name  string
		d     Deployment
		field string
		value any
		limit string
	}{
		{"dense with ep", Deployment{Model: mustModel(t, "llama-3.1-8b"), GPU: g, TP: 2, EP: 2}, "ep", 2, "needs a mixture-of-experts model"},
		{"dense with dp", Deployment{Model: mustModel(t, "llama-3.1-8b"), GPU: g, TP: 2, DP: 2}, "dp", 2, "needs a mixture-of-experts model"},
		{"ep does not divide ranks", Deployment{Model: qwen30B(), GPU: g, TP: 2, EP: 4}, "ep", 4, "must divide tp×dp 2"},
		{"negative dp", Deployment{Model: qwen30B(), GPU: g, TP: 1, DP: -1}, "dp", -1, "must be >= 0"},
		{"negative ep", Deployment{Model: qwen30B(), GPU: g, TP: 1, EP: -1}, "ep", -1, "must be >= 0"},
		{"dp without exchange model", Deployment{Model: qwen30B(), GPU: mustGPU(t, "h100-pcie"), TP: 1, DP: 2, EP: 2}, "dp", 2, `needs gpu "h100-pcie"'s all_reduce parameters for the MoE token exchange`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			requireProblem(t, tt.d.Validate(), tt.field, tt.value, tt.limit)
		})
	}
}

// TestMLAStep: Kimi-K2.5's latent cache is replicated on every TP rank,
// decode attention runs over the latent (2·(512+64) + 2·512 FLOPs per pair
// and head), prefill over decompressed heads (2·(128+64) + 2·128).
func TestMLAStep(t *testing.T) {
	t.Parallel()
	m := hfModel(t, "moonshotai--Kimi-K2.5")
	d := Deployment{Model: m, GPU: mustGPU(t, "b200"), TP: 8}
	require.NoError(t, d.Validate())
	assert.Equal(t, 61.0*576*2, d.KVBytesPerTokenPerRank(), "not divided by TP")

	dec := d.Step(DecodeBatch(1, 1000))
	assert.Equal(t, 1000*61.0*8*(2*576+2*512), dec.AttnFLOPs)
	assert.Equal(t, 1000*61.0*576*2, dec.KVReadBytes)

	var b Batch
	b.AddPrefill(512, 0)
	pre := d.Step(b)
	assert.InEpsilon(t, prefillPairs(512, 0)*61*8*(2*192+2*128), pre.AttnFLOPs, 1e-12)

	sh, err := m.Shape(8)
	require.NoError(t, err)
	assert.Equal(t, Shape{TP: 8, HeadsPerRank: 8, KVHeadsPerRank: 1, KVReplication: 8, IntermediatePerRank: 18432 / 8}, sh)
}

// TestSlidingWindowStep: gpt-oss-120b's 18 sliding layers read at most 128
// entries per sequence.
func TestSlidingWindowStep(t *testing.T) {
	t.Parallel()
	m := hfModel(t, "openai--gpt-oss-120b")
	d := Deployment{Model: m, GPU: mustGPU(t, "h200"), TP: 1}
	require.NoError(t, d.Validate())
	perLayer := 2 * 8 * 64 * 2.0 // K and V, 8 heads of 64, BF16
	s := d.Step(DecodeBatch(2, 1000))
	assert.Equal(t, 2000*18*perLayer+2*128*18*perLayer, s.KVReadBytes)
	assert.Equal(t, 2*36*perLayer, s.KVWriteBytes)
	assert.Equal(t, 2000*4*18*64*64.0+2*128*4*18*64*64.0, s.AttnFLOPs)
	short := d.Step(DecodeBatch(2, 50))
	assert.Equal(t, 100*36*perLayer, short.KVReadBytes, "inside the window every layer reads all")
}

// TestDenseModelsTakeTheDensePath: the MoE, MLA and sliding-window terms
// add nothing to a dense grouped-query model.
func TestDenseModelsTakeTheDensePath(t *testing.T) {
	t.Parallel()
	m := mustModel(t, "llama-3.1-70b")
	assert.Equal(t, m.TotalParams(), m.activeParams())
	assert.Equal(t, 0, m.moeLayers())
	assert.Zero(t, m.replicatedParams())
	assert.Zero(t, m.slidingKVBytesPerToken())
	assert.Equal(t, m.MatmulParams(), float64(m.Layers)*m.layerMatmulParams()+m.embeddingParams())
}

// powerLawSampler draws one step's expert loads as aiconfigurator's
// collector does (collector/helper.py, _generate_power_law_distribution
// and sample_power_law at ai-dynamo/aiconfigurator@095f58a5, EP 1): loads
// from the density ∝ w^−α on [1, 0.8·T] (on [0.01, 2] when T·k ≤ E) by the
// inverse CDF, scaled to T·k pairs and rounded, capped at T, and the
// difference made up one pair at a time on the least loaded expert below
// the cap (or taken from the most loaded). It returns the experts touched.
func powerLawSampler(rng *rand.Rand, tokens, experts, k int, alpha float64) int {
	pairs := tokens * k
	lo, hi := 0.01, 2.0
	if pairs > experts {
		lo, hi = 1, 0.8*float64(tokens)
	}
	g := 1 - alpha
	w := make([]float64, experts)
	var sum float64
	for i := range w {
		w[i] = math.Pow((math.Pow(hi, g)-math.Pow(lo, g))*rng.Float64()+math.Pow(lo, g), 1/g)
		sum += w[i]
	}
	counts := make([]int, experts)
	total := 0
	for i := range w {
		counts[i] = min(tokens, int(math.RoundToEven(w[i]/sum*float64(pairs))))
		total += counts[i]
	}
	for ; total < pairs; total++ {
		j := -1
		for i, c := range counts {
			if c < tokens && (j < 0 || c < counts[j]) {
				j = i
			}
		}
		counts[j]++
	}
	for ; total > pairs; total-- {
		j := 0
		for i, c := range counts {
			if c > counts[j] {
				j = i
			}
		}
		counts[j]--
	}
	touched := 0
	for _, c := range counts {
		if c > 0 {
			touched++
		}
	}
	return touched
}

// TestPowerLawTouchedMatchesSampler checks the closed form of the experts
// a step touches under power-law routing against draws of aiconfigurator's
// sampler itself (powerLawSampler), over the expert counts and exponents
// of the models it is used for: the closed form leaves the rounding out
// and puts the mean load in place of the draws' average, and is allowed
// 0.06 of E above the sampler's mean and 0.01 below (its error is one-sided:
// measured 0.01 to 0.04 high), the mean's standard error being under 0.005.
// It must also be k/E at one token and rise with the tokens to at most E.
func TestPowerLawTouchedMatchesSampler(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	for _, alpha := range []float64{1.01, 1.2} {
		for _, ek := range [][2]int{{32, 4}, {128, 4}, {128, 8}, {256, 8}, {384, 8}} {
			e, k := ek[0], ek[1]
			for _, x := range []float64{0.25, 0.5, 1, 2, 4, 16} { // T·k/E
				tokens := max(2, int(math.Round(x*float64(e)/float64(k))))
				const draws = 200
				var mean float64
				for range draws {
					mean += float64(powerLawSampler(rng, tokens, e, k, alpha))
				}
				mean /= draws * float64(e)
				got := powerLawTouched(float64(tokens), float64(e), float64(k), alpha)
				if got > mean+0.06 || got < mean-0.01 {
					t.Errorf("alpha %v, E %d, k %d, T %d: closed form %.3f, sampler %.3f", alpha, e, k, tokens, got, mean)
				}

			}
			prev := 0.0
			for tokens := 1.0; tokens <= 8192; tokens++ {
				f := powerLawTouched(tokens, float64(e), float64(k), alpha)
				if f < prev || f > 1 || tokens == 1 && f != float64(k)/float64(e) {
					t.Fatalf("alpha %v, E %d, k %d: %v tokens touch %v after %v (k/E at one token, rising, at most 1)", alpha, e, k, tokens, f, prev)
				}
				prev = f
			}
		}
	}
}

// TestRoutingSkewInTheStep: with RoutingSkew a step reads the experts the
// power law touches, capped at uniform routing's: MiniMax-M2.5's 256
// experts (k 8) at α 1.2 and 32 tokens, 0.485 of them (the closed form;
// the sampler's draws give 0.46) against uniform routing's
// 1 − (31/32)^32 = 0.638; with 32 experts (k 4) at 16 tokens the sampler
// and the closed form touch more than uniform routing, 1 − (7/8)^16 =
// 0.882, which caps them. A decode step's weight bytes move by the
// difference times the experts' bytes.
func TestRoutingSkewInTheStep(t *testing.T) {
	t.Parallel()
	minimax := ModelSpec{Experts: 256, ExpertsPerToken: 8, RoutingSkew: 1.2}
	assert.InDelta(t, 0.485, minimax.expectedDistinctExperts(32)/256, 0.001)
	small := ModelSpec{Experts: 32, ExpertsPerToken: 4, RoutingSkew: 1.2}
	assert.InDelta(t, 1-math.Pow(7.0/8, 16), small.expectedDistinctExperts(16)/32, 1e-12)
	assert.Greater(t, powerLawTouched(16, 32, 4, 1.2), 0.95, "the uncapped closed form")

	uniform := Deployment{Model: qwen30B(), GPU: mustGPU(t, "h100-sxm"), TP: 1}
	skewed := uniform
	skewed.Model.RoutingSkew = 1.2
	const expertBytes = 48 * 3 * 2048 * 768 * 2 // all layers' one expert, BF16
	for _, seqs := range []int{1, 16, 64, 512} {
		u, s := uniform.Step(DecodeBatch(seqs, 100)), skewed.Step(DecodeBatch(seqs, 100))
		want := (skewed.Model.expectedDistinctExperts(float64(seqs)) - uniform.Model.expectedDistinctExperts(float64(seqs))) * expertBytes
		assert.InDelta(t, want, s.WeightBytes-u.WeightBytes, 1e-6*u.WeightBytes, "%d sequences", seqs)
		assert.LessOrEqual(t, s.WeightBytes, u.WeightBytes, "%d sequences", seqs)
	}
}

// TestRoutingSkewValidate: the exponent must lie in (1, 2), and only a
// mixture-of-experts model may have one.
func TestRoutingSkewValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		skew    float64
		experts bool
		want    string
	}{
		{0, true, ""}, {1.01, true, ""}, {1.99, true, ""},
		{1, true, "must be 0 (uniform routing) or in (1, 2)"},
		{2, true, "must be 0"},
		{math.NaN(), true, "must be 0"},
		{-1.2, true, "must be 0"},
		{1.2, false, "is set on a dense model"},
	} {
		m := qwen30B()
		if !tt.experts {
			m.Experts, m.ExpertsPerToken, m.ExpertIntermediate = 0, 0, 0
		}
		m.RoutingSkew = tt.skew
		err := m.Validate()
		if tt.want == "" {
			assert.NoError(t, err, "skew %v", tt.skew)
			continue
		}
		requireProblem(t, err, "routing_skew", tt.skew, tt.want)
	}
}

// TestDPTokens: under attention data parallelism a group's step routes
// every group's tokens through the MoE layers (Batch.DPTokens). The MoE
// side of a 1000-token group step whose groups carry 1200 tokens in all
// is that of a 600-token step with every group like it, and its attention
// and dense layers those of its own 1000 tokens; DPTokens of D times the
// batch is the default. With and without a fused-MoE entry.
func TestDPTokens(t *testing.T) {
	t.Parallel()
	h100 := mustGPU(t, "h100-sxm")
	prof, err := embeddedProfile("h100-sxm")
	require.NoError(t, err)
	for _, d := range []Deployment{
		{Model: qwen30B(), GPU: h100, TP: 1, DP: 2, EP: 2},
		{Model: qwen30B(), GPU: h100, TP: 1, DP: 2, EP: 2, Profile: &prof},
	} {
		prefill := func(tokens int) Batch {
			return Batch{PrefillTokens: tokens, PrefillSeqs: 1, PrefillPairs: prefillPairs(float64(tokens), 0)}
		}
		own := d.Step(prefill(1000))
		explicit := prefill(1000)
		explicit.DPTokens = 2000
		assert.Equal(t, own, d.Step(explicit), "DPTokens = D·T is the default")

		mixed := prefill(1000)
		mixed.DPTokens = 1200
		got, like := d.Step(mixed), d.Step(prefill(600))
		assert.InDelta(t, like.WeightBytes, got.WeightBytes, 1e-9*like.WeightBytes, "experts touched")
		assert.InDelta(t, like.CommTime, got.CommTime, 1e-15, "the groups' token exchange")
		assert.InDelta(t, like.MoETime, got.MoETime, 1e-15, "fused experts")
		assert.Equal(t, own.AttnFLOPs, got.AttnFLOPs, "attention is the group's own")
		assert.Less(t, got.Time, own.Time)
		// The routed experts' FLOPs follow the 600 tokens a group, the
		// rest the group's own 1000: 2·k·P_expert·L_moe per token fewer.
		const routedPerToken = 2 * 8 * 3 * 2048 * 768 * 48
		assert.InDelta(t, 400*routedPerToken, own.ProjFLOPs-got.ProjFLOPs, 1e-9*own.ProjFLOPs)
	}
}

// TestDPStepMonotone: under attention data parallelism a group's step is
// never slower with fewer tokens of its own or fewer tokens through the
// MoE layers in all. The routed experts' GEMMs run on all groups' tokens:
// priced at the efficiency of the group's own token count instead, a
// group decoding one token beside a group prefilling 1024 took 1.99 s on
// A100s with gpt-oss-120b, against 0.05 s for both groups prefilling
// 1024. Checked with experts on the roofline (A100, L40S: no fused-MoE
// entry for MXFP4) and on H100's fused entry, with and without EP.
func TestDPStepMonotone(t *testing.T) {
	t.Parallel()
	model := mustModel(t, "gpt-oss-120b")
	tokens := []int{1, 8, 64, 512, 1024, 4096}
	for _, gpu := range []string{"a100-80gb", "l40s", "h100-sxm", "b200"} {
		for _, ep := range []int{0, 2} {
			g := mustGPU(t, gpu)
			prof := DefaultProfile(g)
			d := Deployment{Model: model, GPU: g, TP: 1, DP: 2, EP: ep, Profile: &prof}
			sm, err := d.Compile()
			require.NoError(t, err)
			step := func(own, all int) float64 {
				b := Batch{PrefillTokens: own, PrefillSeqs: 1, PrefillPairs: prefillPairs(float64(own), 0), DPTokens: all}
				return sm.Step(b).Time
			}
			for i, own := range tokens {
				for j := i; j < len(tokens); j++ {
					for _, other := range tokens {
						// own tokens here beside other there, against more
						// of both.
						a := step(own, own+other)
						b := step(tokens[j], tokens[j]+other)
						c := step(own, own+tokens[j])
						assert.LessOrEqual(t, a, b*(1+1e-12), "%s ep%d: %d own beside %d, against %d own", gpu, ep, own, other, tokens[j])
						if other <= tokens[j] {
							assert.LessOrEqual(t, a, c*(1+1e-12), "%s ep%d: %d own beside %d, against beside %d", gpu, ep, own, other, tokens[j])
						}
					}
				}
			}
			assert.Less(t, step(1, 1025), step(1024, 2048), "%s ep%d: one token beside a prefill", gpu, ep)
		}
	}
}

// TestDPComputeTerms: with a profile, each GEMM of a data-parallel group's
// step runs at the GEMM curve's factor (T + T½)/T of its own rows: the
// dense projections at the group's T tokens, the routed experts at the
// D·te tokens all groups gather into each rank's expert GEMMs, the LM head
// at the scheduled sequences. gpt-oss-120b on A100s (no MXFP4 entry: its
// experts are on the roofline at the BF16 peak), TP 1, DP 2. The FLOPs of
// each part come from the three-number model's totals by differences:
// routed FLOPs a gathered token from two DPTokens at the same batch, the
// LM head's a sequence from one prefill of 1000 tokens against two of 500.
func TestDPComputeTerms(t *testing.T) {
	t.Parallel()
	model, g := mustModel(t, "gpt-oss-120b"), mustGPU(t, "a100-80gb")
	prof := DefaultProfile(g)
	d := Deployment{Model: model, GPU: g, TP: 1, DP: 2, Profile: &prof}
	floor := Deployment{Model: model, GPU: g, TP: 1, DP: 2}
	batch := func(chunks, dpTokens int) Batch {
		b := Batch{DecodeSeqs: 4, DPTokens: dpTokens}
		for range chunks {
			b.AddPrefill(1000/chunks, 0)
		}
		return b
	}
	const T, dpTokens = 1004.0, 3000
	te := float64(dpTokens) / 2
	a, b := floor.Step(batch(1, dpTokens)), floor.Step(batch(1, 2000))
	routed := (a.ProjFLOPs - b.ProjFLOPs) / (te - 1000) // routed FLOPs a unit of te
	lmHead := floor.Step(batch(2, dpTokens)).ProjFLOPs - a.ProjFLOPs
	require.Positive(t, routed)
	require.Positive(t, lmHead)
	f := func(rows float64) float64 { return (rows + prof.GEMM.HalfTokens) / rows }
	peak := g.PeakFLOPS.BF16
	got := d.Step(batch(1, dpTokens))
	require.Zero(t, got.MoETime, "experts on the roofline")
	rest := a.ProjFLOPs - routed*te - 5*lmHead
	want := (rest*f(T)+routed*te*f(2*te)+5*lmHead*f(5))/(peak*prof.GEMM.Max) + a.AttnFLOPs/(peak*prof.Attention.Prefill)
	assert.InEpsilon(t, want, got.ComputeTime, 1e-9)
}
