package fleet

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched (errors.Is) by every configuration error of this
// package. Messages read as one sentence naming the field, its value and
// the limit.
var ErrInvalid = errors.New("fleet: invalid config")

type configError struct{ err error }

func (e *configError) Error() string   { return e.err.Error() }
func (e *configError) Unwrap() []error { return []error{ErrInvalid, e.err} }

func invalidf(format string, args ...any) error {
	return &configError{fmt.Errorf("fleet: "+format, args...)}
}

// wrap returns err, from another package, as an ErrInvalid error that
// names where it came from.
func wrap(where string, err error) error {
	if err == nil {
		return nil
	}
	return &configError{fmt.Errorf("fleet: %s: %w", where, err)}
}
