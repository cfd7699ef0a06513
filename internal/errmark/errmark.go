// Package errmark marks an error as belonging to a class, a sentinel such
// as sim.ErrInvalidConfig, without changing its message.
//
// Layers that pass a lower layer's validation error up would otherwise
// prefix it with their own sentinel ("invalid config: invalid queue: ...").
// A marked error keeps the lower layer's one sentence, naming the field
// and the value, while errors.Is matches the new class and every class the
// error already had.
package errmark

import "errors"

type marked struct {
	class error
	err   error
}

func (m marked) Error() string        { return m.err.Error() }
func (m marked) Unwrap() error        { return m.err }
func (m marked) Is(target error) bool { return target == m.class }

// With returns err marked as class: its message is err's, and errors.Is
// matches class as well as whatever err matches. With returns nil for a
// nil err and err itself when it already matches class.
func With(class, err error) error {
	if err == nil || errors.Is(err, class) {
		return err
	}
	return marked{class, err}
}
