package dataset

import "github.com/servesim/servesim/workload"

// TimedTrace turns rows of vLLM's timed_trace dataset into requests as
// vLLM builds them: each prompt from the row's hash ids, chunk tokens
// each, up to its input_length (a row with too few ids gets a shorter
// prompt), and its output_length. Rows with equal hash ids share those
// chunks' tokens, so blocks (each row's ids; nil when no row has any)
// let the prefix cache see the sharing, in blocks of chunk tokens.
func TimedTrace(rows []workload.TraceRow, chunk int) (pairs []workload.Pair, blocks [][]int64) {
	pairs = make([]workload.Pair, len(rows))
	for i, r := range rows {
		in := r.Input
		if r.HashIDs != nil {
			in = min(in, len(r.HashIDs)*chunk)
			if blocks == nil {
				blocks = make([][]int64, len(rows))
			}
			blocks[i] = r.HashIDs
		}
		pairs[i] = workload.Pair{Input: in, Output: r.Output}
	}
	return pairs, blocks
}
