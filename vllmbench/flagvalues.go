package vllmbench

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/scenario"
)

// The flag.Value types of vLLM's flags that write their values as Python
// does (PyFloat) or read scenario's units; the plain ones are cliflag's.

// rateValue is a request rate: a number > 0 or inf.
type rateValue struct{ p *float64 }

func (v rateValue) String() string {
	if v.p == nil {
		return ""
	}
	return PyFloat(*v.p)
}

func (v rateValue) Set(s string) error {
	r, err := scenario.ParseRate(s)
	if err != nil {
		return errors.New("must be a number > 0 (requests/s) or inf")
	}
	*v.p = r
	return nil
}

// bytesValue is a byte count, with an optional unit (8GiB).
type bytesValue struct{ p *float64 }

func (v bytesValue) String() string {
	if v.p == nil || *v.p == 0 {
		return ""
	}
	return strconv.FormatFloat(*v.p, 'f', -1, 64)
}

func (v bytesValue) Set(s string) error {
	if n, err := cliflag.ParseHumanInt(s); err == nil && strings.ContainsAny(s, "kmgtKMGT") {
		*v.p = float64(n) // vLLM's 8G (8 GiB) and 8g (8e9)
		return nil
	}
	b, err := scenario.ParseBytes(s)
	if err != nil {
		if strings.Contains(err.Error(), "too large") {
			return fmt.Errorf("is too large: a byte count must be at most %v", math.MaxFloat64)
		}
		return errors.New("must be a byte count >= 0 (a number, or with a unit: 8GiB, 512MiB)")
	}
	*v.p = b
	return nil
}
