package vllmbench

import (
	"fmt"

	"github.com/servesim/servesim/sim"
)

// specDecodeStats are vLLM bench serve's spec_decode_stats of a run with
// speculative decoding (false without): acceptance rate in %, acceptance
// length, drafts, draft and accepted tokens, per-position rates.
type specDecodeStats struct {
	rate, length                    float64
	drafts, draftTokens, acceptedTk int64
	perPos                          []float64
}

func specStats(res *sim.Result) (specDecodeStats, bool) {
	drafts, ok := res.Stat("spec_decode_num_drafts")
	if !ok {
		return specDecodeStats{}, false
	}
	dt, _ := res.Stat("spec_decode_num_draft_tokens")
	acc, _ := res.Stat("spec_decode_num_accepted_tokens")
	if dt <= 0 {
		return specDecodeStats{}, false // vLLM reports none without a draft token
	}
	s := specDecodeStats{rate: 100 * acc / dt, length: 1 + acc/drafts,
		drafts: int64(drafts), draftTokens: int64(dt), acceptedTk: int64(acc)}
	for i := 0; ; i++ {
		v, ok := res.Stat(fmt.Sprintf("spec_decode_acceptance_rate_pos_%d", i))
		if !ok {
			break
		}
		s.perPos = append(s.perPos, v)
	}
	return s, true
}

// printSpecDecode writes vLLM bench serve's "Speculative Decoding" section.
func printSpecDecode(s SummaryWriter, res *sim.Result) {
	st, ok := specStats(res)
	if !ok {
		return
	}
	fmt.Fprintln(s.W, Banner("Speculative Decoding", '-'))
	s.Float("Acceptance rate (%):", st.rate)
	s.Float("Acceptance length:", st.length)
	s.Int("Drafts:", st.drafts)
	s.Int("Draft tokens:", st.draftTokens)
	s.Int("Accepted tokens:", st.acceptedTk)
	if len(st.perPos) > 0 {
		fmt.Fprintln(s.W, "Per-position acceptance (%):")
		for i, r := range st.perPos {
			s.Float(fmt.Sprintf("  Position %d:", i), 100*r)
		}
	}
}

// setSpecDecode adds vLLM bench serve's spec_decode_* result keys.
func setSpecDecode(set func(string, any), res *sim.Result) {
	st, ok := specStats(res)
	if !ok {
		return
	}
	set("spec_decode_acceptance_rate", pyNum(st.rate))
	set("spec_decode_acceptance_length", pyNum(st.length))
	set("spec_decode_num_drafts", st.drafts)
	set("spec_decode_draft_tokens", st.draftTokens)
	set("spec_decode_accepted_tokens", st.acceptedTk)
	set("spec_decode_per_position_acceptance_rates", pyNums(st.perPos))
}
