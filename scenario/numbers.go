package scenario

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var (
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
	nodeType        = reflect.TypeFor[yaml.Node]()
)

// checkNumbers walks the YAML tree n beside the Go type t and rejects,
// with the field's path and line, a scalar that does not fit its numeric
// field. The YAML decoder would truncate a fraction given to an integer
// field (replications: 1.5 runs once) and reports other mismatches with Go
// type names and no field; here the field is named. Mappings, unknown
// fields and other kinds of mismatch are left to the decoder.
func checkNumbers(n *yaml.Node, t reflect.Type, path string) error {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if err := checkNumbers(c, t, path); err != nil {
				return err
			}
		}
		return nil
	case yaml.AliasNode:
		return checkNumbers(n.Alias, t, path)
	}
	if t == nodeType || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil // parsed by its own UnmarshalYAML, which names the field
	}
	switch t.Kind() {
	case reflect.Pointer:
		return checkNumbers(n, t.Elem(), path)
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if f, ok := fieldByKey(t, key); ok {
				if err := checkNumbers(n.Content[i+1], f.Type, joinPath(path, key)); err != nil {
					return err
				}
			}
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, c := range n.Content {
			if err := checkNumbers(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return checkWhole(n, path, t.Kind() == reflect.Uint64)
	case reflect.Float64:
		if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!str" || n.ShortTag() == "!!bool") {
			return &FieldError{Line: n.Line, Field: path, Limit: fmt.Sprintf("%q is not a number", n.Value), Class: ErrInvalid}
		}
	}
	return nil
}

// checkWhole checks the scalar of an integer field: a whole number in the
// field's range, written as an integer or as an exact float (1e6).
func checkWhole(n *yaml.Node, path string, unsigned bool) error {
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return nil
	}
	bad := func(format string, args ...any) error {
		return &FieldError{Line: n.Line, Field: path, Limit: fmt.Sprintf(format, args...), Class: ErrInvalid}
	}
	lo, hi, rng := float64(math.MinInt64), float64(math.MaxInt64), "[-9223372036854775808, 9223372036854775807]"
	if unsigned {
		lo, hi, rng = 0, float64(math.MaxUint64), "[0, 18446744073709551615]"
	}
	switch n.ShortTag() {
	case "!!int":
		if unsigned && strings.HasPrefix(strings.TrimSpace(n.Value), "-") {
			return bad("%s must be a whole number in %s", n.Value, rng)
		}
		return nil
	case "!!float":
		f, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil // .inf, .nan and the like: the decoder reports them
		}
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0) || f < lo || f >= hi:
			return bad("%s is out of range: want a whole number in %s", n.Value, rng)
		case f != math.Trunc(f):
			return bad("%s must be a whole number", n.Value)
		}
		return nil
	default:
		return bad("%q is not a whole number", n.Value)
	}
}

// fieldByKey returns the field of struct type t whose YAML key is key.
func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
