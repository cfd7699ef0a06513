package errmark_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/servesim/servesim/internal/errmark"
)

var (
	errOuter = errors.New("invalid config")
	errInner = errors.New("invalid queue")
)

func TestWithKeepsMessageAndBothClasses(t *testing.T) {
	t.Parallel()
	inner := fmt.Errorf("%w: servers 0 must be >= 1", errInner)
	err := errmark.With(errOuter, inner)
	if err.Error() != "invalid queue: servers 0 must be >= 1" {
		t.Fatalf("message %q changed", err)
	}
	if !errors.Is(err, errOuter) || !errors.Is(err, errInner) {
		t.Fatalf("errors.Is lost a class: outer %v inner %v", errors.Is(err, errOuter), errors.Is(err, errInner))
	}
	if again := errmark.With(errOuter, err); again != err {
		t.Fatal("marking twice wrapped again")
	}
	if errmark.With(errOuter, nil) != nil {
		t.Fatal("a nil error became non-nil")
	}
}

func ExampleWith() {
	errInvalidConfig := errors.New("invalid config")
	err := errmark.With(errInvalidConfig, errors.New("fcfs servers 0 must be >= 1"))
	fmt.Println(err, errors.Is(err, errInvalidConfig))
	// Output: fcfs servers 0 must be >= 1 true
}
