package topology

import (
	"errors"
	"fmt"
	"math"

	"github.com/servesim/servesim/cost"
	"github.com/servesim/servesim/fielderr"
)

// ErrFit is matched by the error of Fit when the measurements cannot
// determine the inter-node α–β (too few points in the size range, or a
// slope that is not positive).
var ErrFit = errors.New("cost: cannot fit efficiency")

// topologyError is an error of this package other than Validate's (those
// are *fielderr.Errors, see fieldErr). It reads as cost's errors do,
// "cost: " + msg naming the field and its value, and matches kind (one of
// cost's sentinels, cost.ErrInvalidSpec or cost.ErrUnknownName, or ErrFit)
// under errors.Is, and unwraps to its cause when there is one.
type topologyError struct {
	kind  error
	msg   string
	cause error
}

func (e *topologyError) Error() string { return "cost: " + e.msg }

// Unwrap returns the sentinel the error matches and its cause.
func (e *topologyError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

// errorf returns an error of kind that reads "cost: " + the formatted
// message.
func errorf(kind error, format string, args ...any) error {
	return &topologyError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// wrapf returns an error of kind that reads "cost: " + the formatted
// message + ": " + cause's message, and unwraps to cause.
func wrapf(kind, cause error, format string, args ...any) error {
	return &topologyError{kind: kind, msg: fmt.Sprintf(format, args...) + ": " + cause.Error(), cause: cause}
}

// fieldErr returns a *fielderr.Error rejecting field's value, matching
// cost.ErrInvalidSpec (the Validate methods' errors).
func fieldErr(field string, value any, limit string, args ...any) error {
	fe := fielderr.New(field, value, limit, args...)
	fe.Class = cost.ErrInvalidSpec
	return fe
}

// invalidf returns a cost.ErrInvalidSpec error that reads "cost: " + the
// formatted message.
func invalidf(format string, args ...any) error {
	return errorf(cost.ErrInvalidSpec, format, args...)
}

func positiveFinite(v float64) bool    { return v > 0 && !math.IsInf(v, 1) }
func nonNegativeFinite(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

// ringBytes returns 2(p−1)/p·S, the bytes each rank sends in a ring
// all-reduce of S bytes over p ranks (0 for p ≤ 1): the per-byte part of
// cost.AlphaBeta's τ at a bus bandwidth of one byte a second.
func ringBytes(payload float64, p int) float64 {
	return cost.AlphaBeta{BusBandwidth: 1}.Time(payload, p)
}
