package topology

import (
	"math"
	"testing"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLinkValidateFieldErrors: a bad link is a *fielderr.Error at the
// field with its value, naming the link and matching cost.ErrInvalidSpec;
// every catalog link is valid.
func TestLinkValidateFieldErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		l     Link
		field string
		value any
		msg   string
	}{
		{"no bandwidth", Link{Name: "x"}, "bandwidth_bytes_per_s", 0.0, `bandwidth_bytes_per_s: 0 must be a finite number > 0 (link "x")`},
		{"infinite bandwidth", Link{Name: "x", Bandwidth: math.Inf(1)}, "bandwidth_bytes_per_s", math.Inf(1), `bandwidth_bytes_per_s: +Inf must be a finite number > 0 (link "x")`},
		{"negative latency", Link{Name: "y", Bandwidth: 1e9, Latency: -1e-3}, "latency_s", -1e-3, `latency_s: -0.001 must be a finite number of seconds >= 0 (link "y")`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.l.Validate()
			fe := fielderr.Of(err)
			require.NotNil(t, fe, "Validate() = %v, want a *fielderr.Error", err)
			assert.Equal(t, tt.field, fe.Field)
			assert.Equal(t, tt.value, fe.Value)
			assert.EqualError(t, err, tt.msg)
			assert.ErrorIs(t, err, cost.ErrInvalidSpec)
		})
	}
	for _, name := range LinkNames() {
		l, err := LinkByName(name)
		require.NoError(t, err)
		assert.NoError(t, l.Validate(), name)
	}
}
