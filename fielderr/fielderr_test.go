package fielderr_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/servesim/servesim/internal/errmark"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	errLow  = errors.New("low: invalid")
	errHigh = errors.New("high: invalid")
)

func TestErrorReads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *fielderr.Error
		want string
	}{
		{"value and limit", fielderr.New("max_num_seqs", 0, "must be >= 1"), "max_num_seqs: 0 must be >= 1"},
		{"string value quoted", fielderr.New("router", "random", "must be %q", "round-robin"), `router: "random" must be "round-robin"`},
		{"no value", fielderr.New("speculative_config", nil, "needs enable_chunked_prefill"), "speculative_config: needs enable_chunked_prefill"},
		{"fix", &fielderr.Error{Field: "max_model_len", Value: 9, Limit: "exceeds 8", Fix: "lower it"}, "max_model_len: 9 exceeds 8; lower it"},
		{"cause stands for the limit", fielderr.Wrap("deployment.tp", errors.New("tp 3 must divide heads 32")), "deployment.tp: tp 3 must divide heads 32"},
		{"file and line", &fielderr.Error{File: "a.yaml", Line: 6, Field: "server.max_num_seqs", Limit: "-4 must be >= 1"}, "a.yaml:6: server.max_num_seqs: -4 must be >= 1"},
		{"file without line", &fielderr.Error{File: "a.yaml", Limit: "empty scenario"}, "a.yaml: empty scenario"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.err.Error())
		})
	}
}

// TestRenameKeepsClasses: a renamed error reads with the new field, is
// found by errors.As with the new field, still matches every class the
// original had, and leaves the original unchanged.
func TestRenameKeepsClasses(t *testing.T) {
	t.Parallel()
	low := fielderr.New("max_num_seqs", 0, "must be >= 1")
	marked := errmark.With(errLow, low)

	placed := fielderr.In("server", marked)
	require.EqualError(t, placed, "server.max_num_seqs: 0 must be >= 1")
	assert.ErrorIs(t, placed, errLow)
	fe := fielderr.Of(placed)
	require.NotNil(t, fe)
	assert.Equal(t, "server.max_num_seqs", fe.Field)
	assert.Equal(t, 0, fe.Value)
	assert.Equal(t, "max_num_seqs", low.Field, "the original changed")

	fe.Class = errHigh
	assert.ErrorIs(t, placed, errHigh)
	assert.ErrorIs(t, placed, errLow)

	table := map[string]string{"max_num_seqs": "--max-num-seqs"}
	flag := fielderr.Rename(low, func(f string) string { return table[f] })
	assert.EqualError(t, flag, "--max-num-seqs: 0 must be >= 1")
	assert.Equal(t, "max_num_seqs", low.Field, "the original changed")
}

func TestInList(t *testing.T) {
	t.Parallel()
	first := fielderr.New("tp", 3, "must divide heads 32")
	first.Class = errLow
	list := errors.Join(first, fielderr.New("layers", 0, "must be >= 1"), errors.New("cost: no such file"))
	placed := fielderr.In("deployment", list)
	assert.EqualError(t, placed, "deployment.tp: 3 must divide heads 32\n"+
		"deployment.layers: 0 must be >= 1\n"+
		"deployment: cost: no such file", "every problem placed, in order")
	fe := fielderr.Of(placed)
	require.NotNil(t, fe)
	assert.Equal(t, "deployment.tp", fe.Field, "errors.As finds the first")
	assert.ErrorIs(t, placed, errLow)
	assert.Equal(t, "tp", first.Field, "the original changed")
}

func TestInOtherErrors(t *testing.T) {
	t.Parallel()
	assert.NoError(t, fielderr.In("server", nil))
	plain := errmark.With(errLow, errors.New("cost: tp 3 must divide heads 32"))
	placed := fielderr.In("server", plain)
	assert.EqualError(t, placed, "server: cost: tp 3 must divide heads 32")
	assert.ErrorIs(t, placed, errLow)
	assert.Equal(t, "server", fielderr.Of(placed).Field)
	assert.Nil(t, fielderr.Of(plain))
	assert.False(t, errors.Is(fielderr.New("x", 1, "bad"), errLow), "a zero Class matches nothing")
}

// A layer places a lower layer's error under its own name; the caller
// reads the field, the value and the limit without parsing the message.
func Example() {
	errInvalid := errors.New("invalid config")
	low := fielderr.New("max_num_seqs", 0, "must be >= 1")
	low.Class = errInvalid
	err := fielderr.In("server", low)

	fmt.Println(err)
	fe := fielderr.Of(err)
	fmt.Println(fe.Field, fe.Value, fe.Limit, errors.Is(err, errInvalid))
	// Output:
	// server.max_num_seqs: 0 must be >= 1
	// server.max_num_seqs 0 must be >= 1 true
}
