package jsonobj

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoundTripKeepsOrder(t *testing.T) {
	t.Parallel()
	var o Object
	require.NoError(t, o.Add("zeta", 1))
	require.NoError(t, o.Add("alpha", "x"))
	require.NoError(t, o.Add("nan", math.NaN()))
	require.NoError(t, o.Add("inf", math.Inf(1)))
	b, err := json.Marshal(o)
	require.NoError(t, err)
	assert.Equal(t, `{"zeta":1,"alpha":"x","nan":null,"inf":null}`, string(b))

	back, err := Parse(b)
	require.NoError(t, err)
	assert.Equal(t, o, back)
	require.NoError(t, back.Set("alpha", 2.5))
	require.NoError(t, back.Set("new", true))
	assert.Equal(t, json.RawMessage("2.5"), back.Get("alpha"))
	assert.Equal(t, json.RawMessage("1"), back.Take("zeta"))
	assert.Nil(t, back.Get("zeta"))
	b, _ = json.Marshal(back)
	assert.Equal(t, `{"alpha":2.5,"nan":null,"inf":null,"new":true}`, string(b))
}

func TestParseRejectsNonObjects(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`[1,2]`, `"x"`, `{"a":`, ``} {
		_, err := Parse([]byte(in))
		assert.Error(t, err, "input %q", in)
	}
}

func ExampleObject() {
	var o Object
	_ = o.Add("duration", 12.5)
	_ = o.Add("completed", 100)
	b, _ := json.Marshal(o)
	fmt.Println(string(b))
	// Output: {"duration":12.5,"completed":100}
}
