// Package fielderr holds the one error type that rejects the value of a
// configuration field: which field, the value it was given, the limit it
// broke and, where the limit does not say it, what to do.
//
// Every layer names fields in its own schema: batching says
// "max_num_seqs", a scenario "server.max_num_seqs", the CLI
// "--max-num-seqs". A layer that passes a lower layer's Error up places
// it under its own name with In or Rename, a typed step; nothing parses
// a message to find the field again.
//
//	var fe *fielderr.Error
//	if errors.As(err, &fe) {
//		fmt.Println(fe.Field, fe.Value) // server.max_num_seqs -4
//	}
//
// The package imports nothing of the project, so the leaves (cost,
// workload, distribution) may use it.
package fielderr

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// An Error rejects the value of one field. Error() reads
//
//	[file[:line]: ]field: [value ]limit[; fix]
//
// ("max_num_seqs: 0 must be >= 1", "server.router: unknown router
// \"x\""); when Cause is set and Limit is empty, Cause's message stands
// for the limit.
type Error struct {
	// File and Line locate the field in the file it came from (a
	// scenario), when it came from one; Line is 0 when unknown.
	File string
	Line int
	// Field is the field's dotted name in the schema of the layer that
	// returns the error ("server.max_num_seqs"); "" for the whole value.
	Field string
	// Value is the value given; nil when the message shows none.
	Value any
	// Limit is the rule the value broke, a phrase that follows the value:
	// "must be >= 1", "exceeds 1024, the most replicas a run simulates".
	Limit string
	// Fix says what to do when Limit does not: "set max_model_len <= 4096".
	Fix string
	// Cause is a lower layer's error behind this one, if any (its message
	// stands for Limit when Limit is empty; errors.Is and errors.As see it).
	Cause error
	// Class, when set, is a sentinel the error matches (errors.Is), such
	// as scenario.ErrInvalid; it does not show in the message.
	Class error
}

// New returns an Error for field with the given value and limit; limit
// is formatted with args as by fmt.Sprintf.
func New(field string, value any, limit string, args ...any) *Error {
	return &Error{Field: field, Value: value, Limit: fmt.Sprintf(limit, args...)}
}

// Wrap returns an Error for field whose message is cause's: a lower
// layer's error (not itself a field error) placed at a field.
func Wrap(field string, cause error) *Error {
	return &Error{Field: field, Cause: cause}
}

// Reason is the message without the location and the field: the value,
// the limit and the fix.
func (e *Error) Reason() string {
	var b strings.Builder
	if e.Value != nil {
		b.WriteString(formatValue(e.Value))
	}
	limit := e.Limit
	if limit == "" && e.Cause != nil {
		limit = e.Cause.Error()
	}
	if limit != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(limit)
	}
	if e.Fix != "" {
		b.WriteString("; " + e.Fix)
	}
	return b.String()
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Reason())
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// Is reports whether target is the error's Class.
func (e *Error) Is(target error) bool { return e.Class != nil && target == e.Class }

// formatValue prints a value as a message shows it: strings quoted,
// numbers as %v.
func formatValue(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// In places err under parent: an Error's field becomes parent.field (or
// parent when it had none); any other error becomes an Error at parent
// with err as its cause. In returns nil for a nil err. The Error is
// copied, never changed in place; err's other wrappers (its classes) are
// kept, since the copy replaces only the Error inside them.
func In(parent string, err error) error {
	return Rename(err, func(field string) string {
		if field == "" {
			return parent
		}
		return parent + "." + field
	})
}

// Rename returns err with its Error's field renamed by name, the typed
// step from one layer's schema to another's (a table lookup, say); an
// error with no Error inside becomes an Error at name("") with err as
// its cause. A list of problems (errors.Join) is renamed problem by
// problem, in order. Rename returns nil for a nil err.
func Rename(err error, name func(field string) string) error {
	if err == nil {
		return nil
	}
	if errs := list(err); errs != nil {
		out := make([]error, len(errs))
		for i, e := range errs {
			out[i] = Rename(e, name)
		}
		return errors.Join(out...)
	}
	var fe *Error
	if !errors.As(err, &fe) {
		return &Error{Field: name(""), Cause: err}
	}
	cp := *fe
	cp.Field = name(fe.Field)
	if error(fe) == err {
		return &cp
	}
	return replaced{err, &cp}
}

// list returns the problems err joins when it is a list of them, as
// errors.Join builds one (its message is theirs, one a line), and nil
// otherwise.
func list(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil
	}
	if _, ok := err.(replaced); ok {
		return nil
	}
	errs := j.Unwrap()
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Error()
	}
	if len(errs) == 0 || err.Error() != strings.Join(msgs, "\n") {
		return nil
	}
	return errs
}

// replaced is err with the Error inside it read as new: its message is
// new's, errors.Is still matches err's classes, errors.As finds new.
type replaced struct {
	err error
	new *Error
}

func (r replaced) Error() string { return r.new.Error() }

// Unwrap returns new and err, so that errors.As finds new first and
// errors.Is still sees every class err had.
func (r replaced) Unwrap() []error { return []error{r.new, r.err} }

// Of returns the Error inside err, or nil when there is none.
func Of(err error) *Error {
	var fe *Error
	if errors.As(err, &fe) {
		return fe
	}
	return nil
}
