package calibrate

import (
	"fmt"

	"github.com/servesim/servesim/batching"
	"github.com/servesim/servesim/workload"
)

// noneCompletedReason says why a re-simulated point completed no request
// when its lengths say: every request is longer than the engine serves
// (max_model_len, the KV pool, or one step's token budget with chunked
// prefill off), with the numbers and what to give instead; "" when the
// lengths do not explain it.
func noneCompletedReason(eng batching.Config, lengths workload.Lengths) string {
	b, ok := lengths.(workload.Bounded)
	if !ok {
		return ""
	}
	inLo, _, outLo, _ := b.Bounds()
	shortest := inLo + outLo
	what := fmt.Sprintf("the shortest request's prompt + output is %d + %d = %d tokens", inLo, outLo, shortest)
	if eng.MaxModelLen > 0 && shortest > eng.MaxModelLen {
		from := "the max_model_len given"
		if m := eng.Deployment.Model; eng.MaxModelLen == m.MaxContext {
			from = fmt.Sprintf("%s's context length, the default", m.Name)
		}
		return fmt.Sprintf("%s, more than max_model_len %d (%s), so the engine rejects every request: "+
			"give the --max-model-len the measured server ran with (at least %d), or check the file's model", what, eng.MaxModelLen, from, shortest)
	}
	if pool, err := eng.Pool(); err == nil && shortest-1 > pool.Tokens {
		return fmt.Sprintf("%s, a KV footprint of %d, more than the KV pool's %d tokens, so the engine rejects every request: "+
			"give the measured server's KV cache (--gpu-memory-utilization, --kv-cache-memory or --num-gpu-blocks-override)", what, shortest-1, pool.Tokens)
	}
	if !eng.EnableChunkedPrefill && shortest-1 > eng.MaxNumBatchedTokens {
		return fmt.Sprintf("%s, more than max_num_batched_tokens %d + 1 with chunked prefill off, so the engine rejects every request: "+
			"give the measured server's --max-num-batched-tokens, or --enable-chunked-prefill", what, eng.MaxNumBatchedTokens)
	}
	return ""
}
