package capacity_test

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/servesim/servesim/capacity"
	"github.com/servesim/servesim/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// everyGap is a user-defined arrival process: one request every 1/Rate
// seconds after a fixed offset. It opts into rate scaling by implementing
// workload.RateSetter.
type everyGap struct{ Rate, Offset float64 }

func (p everyGap) Stream(*rand.Rand, int) (workload.Stream, error) {
	return &gapStream{gap: 1 / p.Rate, t: p.Offset}, nil
}
func (p everyGap) MeanRate() float64                      { return p.Rate }
func (p everyGap) Validate() error                        { return nil }
func (p everyGap) WithRate(rate float64) workload.Process { p.Rate = rate; return p }

type gapStream struct{ gap, t float64 }

func (s *gapStream) Next() float64 { t := s.t; s.t += s.gap; return t }

// fixedOnly is a user-defined process without a rate to set.
type fixedOnly struct{ everyGap }

func (p fixedOnly) WithRate() {} // not the RateSetter signature

func TestWithRateUsesTheOptionalInterface(t *testing.T) {
	t.Parallel()
	got, err := capacity.WithRate(everyGap{Rate: 1, Offset: 0.5}, 4)
	require.NoError(t, err)
	assert.Equal(t, everyGap{Rate: 4, Offset: 0.5}, got, "only the rate changes")

	for _, p := range []workload.Process{workload.Poisson{Rate: 1}, workload.Gamma{Rate: 1, Burstiness: 0.5}, workload.Constant{Rate: 1}} {
		q, err := capacity.WithRate(p, 7)
		require.NoError(t, err)
		assert.Equal(t, 7.0, q.MeanRate(), "%T", p)
	}

	_, err = capacity.WithRate(fixedOnly{everyGap{Rate: 1}}, 4)
	require.Error(t, err)
	assert.True(t, errors.Is(err, capacity.ErrInvalid))
	assert.Contains(t, err.Error(), "fixedOnly")
	assert.Contains(t, err.Error(), "workload.RateSetter")

	_, err = capacity.WithRate(nil, 4)
	assert.ErrorContains(t, err, "needs an open loop")
}
