package scenario

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A Point is one sweep point: the scenario with the swept parameter set to
// one value. A scenario without a sweep has one point, its own.
type Point struct {
	// Index is the point's position in sweep.values, from 0.
	Index int
	// Value is the swept value as YAML reads it (int, float64, string or
	// bool); nil without a sweep. Text is the value as written.
	Value any
	Text  string
	// Scenario is the scenario at this point, without a sweep.
	Scenario *Scenario
}

// Param returns the swept parameter's path, "" without a sweep.
func (s *Scenario) Param() string {
	if s.Sweep == nil {
		return ""
	}
	return s.Sweep.Param
}

// Points returns the sweep points in the order of sweep.values, or the
// scenario itself as the only point when it has no sweep.
func (s *Scenario) Points() ([]Point, error) {
	if s.Sweep == nil {
		return []Point{{Scenario: s}}, nil
	}
	root, err := s.node()
	if err != nil {
		return nil, err
	}
	pts := make([]Point, len(s.Sweep.Values))
	for i := range s.Sweep.Values {
		v := &s.Sweep.Values[i]
		at := fmt.Sprintf("sweep.values[%d]", i)
		ps, err := s.withParam(root, s.Sweep.Param, v)
		if err != nil {
			var fe *FieldError
			if errors.As(err, &fe) && fe.Field != "" && fe.Field != s.Sweep.Param {
				err = fmt.Errorf("%s: %w", fe.Field, reason(fe))
			} else if fe != nil {
				err = reason(fe)
			}
			msg := strings.TrimPrefix(err.Error(), s.Sweep.Param+": ")
			return nil, &FieldError{File: s.file, Line: v.Line, Field: at, Limit: fmt.Sprintf("%s = %s: %s", s.Sweep.Param, v.Value, msg), Class: ErrInvalid}
		}
		var val any
		if err := v.Decode(&val); err != nil {
			return nil, &FieldError{File: s.file, Line: v.Line, Field: at, Cause: err, Class: ErrInvalid}
		}
		pts[i] = Point{Index: i, Value: val, Text: v.Value, Scenario: ps}
	}
	return pts, nil
}

// checkSweep validates the sweep's own fields.
func (s *Scenario) checkSweep() error {
	w := s.Sweep
	if w == nil {
		return nil
	}
	switch {
	case w.Param == "":
		return fieldErr("sweep.param", "is required: the dotted path of the swept field, e.g. workload.arrival.rate")
	case w.Param == "sweep" || strings.HasPrefix(w.Param, "sweep."):
		return fieldErr("sweep.param", "%q: a sweep cannot sweep itself", w.Param)
	case w.Param == "seed":
		return fieldErr("sweep.param", "seed cannot be swept: every point runs replication r with the seed derived from the top-level seed and r (common random numbers), so the points would be identical; set replications for independent runs")
	case len(w.Values) == 0:
		return fieldErr("sweep.values", "must list at least one value")
	}
	for _, part := range strings.Split(w.Param, ".") {
		if part == "" {
			return fieldErr("sweep.param", "%q is not a dotted path like workload.arrival.rate", w.Param)
		}
	}
	for i, v := range w.Values {
		if v.Kind != yaml.ScalarNode {
			return &FieldError{Line: v.Line, Field: fmt.Sprintf("sweep.values[%d]", i), Limit: "must be a scalar (a number, a string or a boolean)", Class: ErrInvalid}
		}
	}
	return nil
}

// node returns the scenario as a YAML tree: the file's, or one encoded
// from the struct for a scenario built in code.
func (s *Scenario) node() (*yaml.Node, error) {
	if s.root != nil {
		return s.root, nil
	}
	var n yaml.Node
	if err := n.Encode(s); err != nil {
		return nil, err
	}
	return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{&n}}, nil
}

// withParam returns the scenario with the field at path set to the scalar
// v, decoded afresh (unknown fields rejected) and without a sweep.
func (s *Scenario) withParam(root *yaml.Node, path string, v *yaml.Node) (*Scenario, error) {
	doc := clone(root)
	m := docMapping(doc)
	if err := set(m, strings.Split(path, "."), v); err != nil {
		return nil, err
	}
	if _, sw := lookup(m, "sweep"); sw != nil {
		removeKey(m, "sweep")
	}
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	ps, err := decode(data, "")
	if err != nil {
		return nil, stripLine(err)
	}
	ps.file, ps.dir, ps.source, ps.root, ps.traces = s.file, s.dir, s.source, doc, s.traces
	ps.summary = s.summary
	ps.SummaryOnly = ps.SummaryOnly || s.summary
	if _, err := ps.config(); err != nil {
		return nil, err
	}
	return ps, nil
}

// stripLine drops the line numbers of a decode error of a re-encoded tree,
// which refer to no line of the user's file.
func stripLine(err error) error {
	var fe *FieldError
	if errors.As(err, &fe) {
		return reason(fe)
	}
	var msgs []string
	for _, e := range unjoin(err) {
		if errors.As(e, &fe) {
			msgs = append(msgs, reason(fe).Error())
		} else {
			msgs = append(msgs, e.Error())
		}
	}
	return errors.New(strings.Join(msgs, "; "))
}

func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// set puts a copy of the scalar v at the dotted path under the mapping m,
// creating mappings on the way.
func set(m *yaml.Node, path []string, v *yaml.Node) error {
	for i, key := range path {
		if m.Kind != yaml.MappingNode {
			return fmt.Errorf("%s is not a mapping", strings.Join(path[:i], "."))
		}
		_, child := lookup(m, key)
		last := i == len(path)-1
		switch {
		case last && child != nil:
			*child = yaml.Node{Kind: yaml.ScalarNode, Tag: v.Tag, Value: v.Value, Style: v.Style, Line: v.Line, Column: v.Column}
		case last:
			m.Content = append(m.Content,
				&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key},
				&yaml.Node{Kind: yaml.ScalarNode, Tag: v.Tag, Value: v.Value, Style: v.Style})
		case child == nil:
			child = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, child)
		case child.Kind == yaml.ScalarNode && child.Tag == "!!null":
			*child = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		}
		m = child
	}
	return nil
}

func removeKey(m *yaml.Node, key string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content = append(m.Content[:i], m.Content[i+2:]...)
			return
		}
	}
}

// clone deep-copies a YAML tree; aliases are resolved into copies.
func clone(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	c := *n
	if n.Kind == yaml.AliasNode {
		return clone(n.Alias)
	}
	c.Content = make([]*yaml.Node, len(n.Content))
	for i, ch := range n.Content {
		c.Content[i] = clone(ch)
	}
	return &c
}

// FormatValue returns a sweep value as text: integers and floats in their
// shortest form, other values with %v.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	default:
		return fmt.Sprint(x)
	}
}
