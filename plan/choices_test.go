package plan_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/plan"
)

// TestChoicesSpace: typed choices resolve to a space: the catalog GPUs at
// their built-in or given prices, each profile on its GPU, the lists as
// given, and the defaults (every priced GPU, DefaultTP, BF16 and FP8)
// where a list is empty; bad choices fail naming the field.
func TestChoicesSpace(t *testing.T) {
	t.Parallel()
	prof := cost.DefaultProfile(cost.GPUSpec{Name: "l40s"})
	s, err := plan.Choices{GPUs: []string{"h100-sxm", "l40s"}, Prices: map[string]float64{"l40s": 1.25},
		Profiles: map[string]*cost.Profile{"l40s": &prof}, TP: []int{1, 2}, ChunkedPrefill: []bool{true, false},
		Precisions: []cost.Precision{cost.FP8}}.Space()
	require.NoError(t, err)
	require.Len(t, s.GPUs, 2)
	assert.Equal(t, "h100-sxm", s.GPUs[0].GPU.Name)
	assert.Equal(t, plan.DefaultPrices()["h100-sxm"], s.GPUs[0].PricePerHour)
	assert.Nil(t, s.GPUs[0].Profile)
	assert.Equal(t, 1.25, s.GPUs[1].PricePerHour)
	assert.Same(t, &prof, s.GPUs[1].Profile)
	assert.Equal(t, []int{1, 2}, s.TP)
	assert.Equal(t, []bool{true, false}, s.ChunkedPrefill)
	assert.Equal(t, []cost.Precision{cost.FP8}, s.Precisions)

	def, err := plan.Choices{}.Space()
	require.NoError(t, err)
	assert.Len(t, def.GPUs, len(plan.DefaultPrices()))
	assert.Equal(t, plan.DefaultTP, def.TP)
	assert.Equal(t, []cost.Precision{cost.BF16, cost.FP8}, def.Precisions)

	for _, tt := range []struct {
		c            plan.Choices
		field, words string
	}{
		{plan.Choices{GPUs: []string{"nope"}}, "GPUs", "nope"},
		{plan.Choices{GPUs: []string{"h200"}}, "GPUs", "h200 has no price"},
		{plan.Choices{Prices: map[string]float64{"l40s": -1}}, "Prices", "l40s=-1"},
		{plan.Choices{GPUs: []string{"l40s"}, Profiles: map[string]*cost.Profile{"h100-sxm": &prof}}, "Profiles", "h100-sxm is not among the GPUs searched (l40s)"},
		{plan.Choices{GPUs: []string{"h100-sxm"}, Profiles: map[string]*cost.Profile{"h100-sxm": &prof}}, "Profiles", "the profile describes l40s, not the deployment's h100-sxm"},
		{plan.Choices{Precisions: []cost.Precision{cost.FP4}}, "Precisions", "a plan searches bf16 and fp8"},
	} {
		_, err := tt.c.Space()
		var ce *plan.ChoiceError
		require.True(t, errors.As(err, &ce), "%+v: %v", tt.c, err)
		assert.Equal(t, tt.field, ce.Field)
		assert.Contains(t, err.Error(), tt.words)
		assert.ErrorIs(t, err, plan.ErrInvalid)
	}
}
