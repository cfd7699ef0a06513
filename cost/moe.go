package cost

import "math"

// MoELayers returns the layers whose MLP is a mixture of experts:
// Layers − DenseLayers, or 0 for a dense model.
func (m ModelSpec) MoELayers() int {
	if m.Experts == 0 {
		return 0
	}
	return m.Layers - m.DenseLayers
}

// ExpertParams returns the weight elements of one routed expert, the three
// SwiGLU matrices 3·H·I_e.
func (m ModelSpec) ExpertParams() float64 {
	return 3 * float64(m.Hidden) * float64(m.ExpertIntermediate)
}

// RoutedExpertParams returns the weight elements of every routed expert of
// every MoE layer, MoELayers·E·3·H·I_e: what expert parallelism splits
// across ranks. It is 0 for a dense model.
func (m ModelSpec) RoutedExpertParams() float64 {
	return float64(m.MoELayers()) * float64(m.Experts) * m.ExpertParams()
}

// ActiveParams returns the parameters one token uses: TotalParams less the
// routed experts it does not use, MoELayers·(E − k)·3·H·I_e. It counts the
// input embedding and the LM head, as Qwen, DeepSeek and Mistral publish
// their "activated" sizes; OpenAI leaves the embedding out of gpt-oss's
// active count and MiniMax both (docs/cost-model.md#mixture-of-experts). For
// a dense model it is TotalParams.
func (m ModelSpec) ActiveParams() float64 {
	idle := float64(m.MoELayers()) * float64(m.Experts-m.ExpertsPerToken) * m.ExpertParams()
	return m.TotalParams() - idle
}

// ExpectedDistinctExperts returns the expected number of distinct routed
// experts of one MoE layer that a step of tokens tokens touches, each token
// choosing k of the E experts uniformly at random:
//
//	E·(1 − (1 − k/E)^T)
//
// (an expert is missed by one token with probability 1 − k/E, by all T
// independently with its T-th power). It is k at T = 1 and tends to E as T
// grows; 0 for T ≤ 0 or a dense model. Real routers are not uniform: skewed
// routing touches fewer experts, so this is the bytes-read upper end for a
// given T.
func (m ModelSpec) ExpectedDistinctExperts(tokens float64) float64 {
	if m.Experts == 0 || tokens <= 0 {
		return 0
	}
	return float64(m.Experts) * distinctFraction(m.logMissProbability(), tokens)
}

// logMissProbability returns log(1 − k/E), the log of the probability that
// one token does not route to a given expert (−Inf when k = E).
func (m ModelSpec) logMissProbability() float64 {
	return math.Log1p(-float64(m.ExpertsPerToken) / float64(m.Experts))
}

// distinctFraction returns 1 − (1 − k/E)^T from logMiss = log(1 − k/E): the
// probability that a given expert is touched by T tokens.
func distinctFraction(logMiss, tokens float64) float64 {
	return -math.Expm1(tokens * logMiss)
}

// expertBytes returns the bytes of one routed-expert weight:
// ExpertWeightBytes, or WeightBytes when that is 0.
func (m ModelSpec) expertBytes() float64 {
	if m.ExpertWeightBytes > 0 {
		return m.ExpertWeightBytes
	}
	return m.WeightBytes
}

// embeddingBytes returns the bytes of one embedding or LM-head weight:
// EmbeddingBytes, or WeightBytes when that is 0.
func (m ModelSpec) embeddingBytes() float64 {
	if m.EmbeddingBytes > 0 {
		return m.EmbeddingBytes
	}
	return m.WeightBytes
}
