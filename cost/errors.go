package cost

import (
	"errors"
	"fmt"

	"github.com/servesim/servesim/fielderr"
)

// A Validate rejects each problem with a *fielderr.Error whose Field is
// the field's key in the file the value would come from (a model's
// "kv_heads", a profile's "gemm.max", a deployment's "model.layers"),
// whose File is that file when it came from one, and whose Class is
// ErrInvalidSpec:
//
//	m.yaml: kv_heads: 3 must divide heads 32
//
// A Validate that finds several problems joins one such error per problem
// (errors.Join), one line each, in the order of the fields, so that
// errors.As finds the first. The package's other errors (a file that does
// not parse, a deployment that does not fit) read as one sentence that
// starts with "cost: ". Every error matches one of the sentinels below
// under errors.Is.
var (
	// ErrInvalidSpec is matched by every error that rejects a model, GPU,
	// deployment, batch or measurement description.
	ErrInvalidSpec = errors.New("cost: invalid spec")
	// ErrDoesNotFit is matched by the error of Deployment.Memory when the
	// per-rank weights and runtime reserve leave no room for a single
	// KV-cache block, or a set KVCacheMemory does not fit beside them.
	ErrDoesNotFit = errors.New("cost: does not fit in GPU memory")
	// ErrUnknownName is matched by the error of Model and GPU when a catalog
	// name is unknown.
	ErrUnknownName = errors.New("cost: unknown catalog name")
)

// costError is an error of this package: "cost: " + msg, followed by the
// cause's message when there is one. It matches kind (one of the sentinels,
// or nil for a cause from outside the package such as a CSV syntax error)
// and unwraps to cause.
type costError struct {
	kind  error
	msg   string
	cause error
}

func (e *costError) Error() string {
	if e.cause == nil {
		return "cost: " + e.msg
	}
	return "cost: " + e.msg + ": " + e.cause.Error()
}

// Unwrap returns the sentinel the error matches and its cause.
func (e *costError) Unwrap() []error {
	out := make([]error, 0, 2)
	for _, err := range []error{e.kind, e.cause} {
		if err != nil {
			out = append(out, err)
		}
	}
	return out
}

// errorf returns an error of kind that reads "cost: " + the formatted
// message.
func errorf(kind error, format string, args ...any) error {
	return &costError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// invalidf returns an ErrInvalidSpec error that reads "cost: " + the
// formatted message.
func invalidf(format string, args ...any) error {
	return errorf(ErrInvalidSpec, format, args...)
}

// wrapf returns an error of kind that reads "cost: " + the formatted
// message + ": " + cause's message, and unwraps to cause.
func wrapf(kind, cause error, format string, args ...any) error {
	return &costError{kind: kind, msg: fmt.Sprintf(format, args...), cause: cause}
}

// invalidField returns an ErrInvalidSpec *fielderr.Error rejecting
// field's value; limit is formatted with args.
func invalidField(field string, value any, limit string, args ...any) *fielderr.Error {
	fe := fielderr.New(field, value, limit, args...)
	fe.Class = ErrInvalidSpec
	return fe
}

// within places context (a file name, a measurement's index) after the
// "cost: " of every problem err holds, so that each still reads as one
// sentence: "cost: m.yaml: unknown field". A field error takes context
// as its File: "m.yaml: hidden: 0 must be >= 1". Errors from outside the
// package are wrapped as "cost: context: err".
func within(context string, err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *fielderr.Error:
		c := *e
		if c.File == "" {
			c.File = context
		}
		return &c
	case *costError:
		c := *e
		c.msg = context + ": " + c.msg
		return &c
	case interface{ Unwrap() []error }: // errors.Join
		errs := e.Unwrap()
		out := make([]error, len(errs))
		for i, err := range errs {
			out[i] = within(context, err)
		}
		return errors.Join(out...)
	default:
		return wrapf(nil, err, "%s", context)
	}
}
