package cost

import "errors"

// ErrInvalidSpec is wrapped by every error that rejects a model, GPU,
// deployment, batch or measurement description. The wrapping message names
// the offending field and its value, e.g.
//
//	invalid spec: model "x": kv_heads 3 must divide heads 32
//
// Test for it with errors.Is.
var ErrInvalidSpec = errors.New("invalid spec")

// ErrDoesNotFit is wrapped by Deployment.Memory when the per-rank weights and
// runtime reserve leave no room for a single KV-cache block.
var ErrDoesNotFit = errors.New("does not fit in GPU memory")

// ErrUnknownName is wrapped by Model and GPU when a catalog name is unknown.
var ErrUnknownName = errors.New("unknown catalog name")

// ErrFit is wrapped by Fit when the measurements cannot determine the
// efficiency knobs (too few points, or a fitted value outside its range).
var ErrFit = errors.New("cannot fit efficiency")
