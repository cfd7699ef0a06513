package dataset

import (
	"reflect"
	"testing"

	"github.com/servesim/servesim/workload"
)

// TestTimedTrace: a row's prompt is at most its hash ids times the chunk
// size, and the ids become its blocks; rows without ids keep their
// lengths and give no blocks.
func TestTimedTrace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		rows   []workload.TraceRow
		pairs  []workload.Pair
		blocks [][]int64
	}{
		{"no hash ids", []workload.TraceRow{{Input: 100, Output: 5}, {Input: 7, Output: 1}},
			[]workload.Pair{{Input: 100, Output: 5}, {Input: 7, Output: 1}}, nil},
		{"ids cap the prompt", []workload.TraceRow{{Input: 100, Output: 5, HashIDs: []int64{1, 2}}, {Input: 20, Output: 3, HashIDs: []int64{1, 2, 3}}},
			[]workload.Pair{{Input: 32, Output: 5}, {Input: 20, Output: 3}}, [][]int64{{1, 2}, {1, 2, 3}}},
		{"some rows without", []workload.TraceRow{{Input: 9, Output: 2}, {Input: 40, Output: 4, HashIDs: []int64{7}}},
			[]workload.Pair{{Input: 9, Output: 2}, {Input: 16, Output: 4}}, [][]int64{nil, {7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pairs, blocks := TimedTrace(tt.rows, 16)
			if !reflect.DeepEqual(pairs, tt.pairs) || !reflect.DeepEqual(blocks, tt.blocks) {
				t.Errorf("pairs %v blocks %v; want %v and %v", pairs, blocks, tt.pairs, tt.blocks)
			}
		})
	}
}
