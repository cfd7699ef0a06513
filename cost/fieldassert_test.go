package cost

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/servesim/servesim/fielderr"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fieldProblems returns the field errors err holds, in order: each
// problem of a join (errors.Join) that is one, or err's own.
func fieldProblems(err error) []*fielderr.Error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		if _, isField := err.(*fielderr.Error); !isField {
			var out []*fielderr.Error
			for _, e := range j.Unwrap() {
				out = append(out, fieldProblems(e)...)
			}
			return out
		}
	}
	if fe := fielderr.Of(err); fe != nil {
		return []*fielderr.Error{fe}
	}
	return nil
}

// requireProblem fails t unless err matches ErrInvalidSpec and holds a
// *fielderr.Error at field whose value prints as value (nil: none) and
// whose limit contains limit; it returns that error.
func requireProblem(t *testing.T, err error, field string, value any, limit string) *fielderr.Error {
	t.Helper()
	require.ErrorIs(t, err, ErrInvalidSpec)
	var fields []string
	for _, fe := range fieldProblems(err) {
		if fe.Field != field {
			fields = append(fields, fe.Field)
			continue
		}
		assert.True(t, errors.Is(fe, ErrInvalidSpec), "%s: the problem itself matches ErrInvalidSpec", field)
		assert.Equal(t, fmt.Sprint(value), fmt.Sprint(fe.Value), "%s: value", field)
		assert.Contains(t, fe.Limit, limit, "%s: limit", field)
		return fe
	}
	require.Failf(t, "no problem at "+field, "the problems are at %s: %v", strings.Join(fields, ", "), err)
	return nil
}
