package scenario

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/servesim/servesim/fielderr"
	"go.yaml.in/yaml/v3"
)

// ErrInvalid is wrapped by every error that rejects a scenario.
var ErrInvalid = errors.New("invalid scenario")

// A FieldError rejects the value of one field: the project's one field
// error, fielderr.Error. Its Field is the field's dotted YAML path
// ("workload.arrival.rate"); File and Line locate it in the scenario file
// when it came from one (Line 0 when unknown); its Class is ErrInvalid.
// Error() reads "file:line: path: message".
type FieldError = fielderr.Error

// fieldErr returns a FieldError for path with a formatted message.
func fieldErr(path, format string, args ...any) *FieldError {
	return &FieldError{Field: path, Limit: fmt.Sprintf(format, args...), Class: ErrInvalid}
}

// valueErr returns a FieldError for path naming the value and the limit
// it broke.
func valueErr(path string, value any, limit string, args ...any) *FieldError {
	fe := fielderr.New(path, value, limit, args...)
	fe.Class = ErrInvalid
	return fe
}

// reason is a FieldError's message without its place: the cause itself
// when the error only places one.
func reason(fe *FieldError) error {
	if fe.Limit == "" && fe.Value == nil && fe.Fix == "" && fe.Cause != nil {
		return fe.Cause
	}
	return errors.New(fe.Reason())
}

// locate fills in the file and the line of path's node in root, if err is
// a FieldError without a line.
func locate(err error, file string, root *yaml.Node) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return &FieldError{File: file, Cause: err, Class: ErrInvalid}
	}
	if fe.File == "" {
		fe.File = file
	}
	if fe.Line == 0 && root != nil {
		fe.Line = lineOf(root, fe.Field)
	}
	return fe
}

// lineOf returns the line of the node at the dotted path, or of its
// deepest existing ancestor; 0 when root is nil.
func lineOf(root *yaml.Node, path string) int {
	n := docMapping(root)
	if n == nil {
		return 0
	}
	line := n.Line
	if path == "" {
		return line
	}
	for _, key := range strings.Split(path, ".") {
		k, v := lookup(n, key)
		if k == nil {
			return line
		}
		line = k.Line
		n = v
	}
	return line
}

// docMapping returns the top-level mapping of a document node.
func docMapping(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind == 0 {
		return nil
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	return n
}

// lookup returns the key and value nodes of key in the mapping n.
func lookup(n *yaml.Node, key string) (k, v *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}

// typeNames maps the Go types of the schema to their place in the file,
// for messages about unknown fields.
var typeNames = map[string]string{
	"scenario.Scenario": "the top level",
	"scenario.Workload": "workload",
	"scenario.Arrival":  "workload.arrival",
	"scenario.Closed":   "workload.closed",
	"scenario.Lengths":  "workload.lengths",
	"scenario.Server":   "server",
	"scenario.SLO":      "slo",
	"scenario.Sweep":    "sweep",
	"cost.Efficiency":   "server.efficiency",
}

var (
	lineRE    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`) })
	unknownRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^field (\S+) not found in type (\S+)$`) })
)

// yamlError turns a go.yaml.in/yaml/v3 error into "file:line: message"
// errors, one per problem, with Go type names replaced by the place in the
// file.
func yamlError(file string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	errs := make([]error, 0, len(msgs))
	for _, m := range msgs {
		fe := &FieldError{File: file, Class: ErrInvalid}
		if sub := lineRE().FindStringSubmatch(strings.TrimPrefix(m, "yaml: ")); sub != nil {
			fe.Line, _ = strconv.Atoi(sub[1])
			m = sub[2]
		}
		if sub := unknownRE().FindStringSubmatch(m); sub != nil {
			where := typeNames[sub[2]]
			if where == "" {
				where = sub[2]
			}
			m = fmt.Sprintf("unknown field %q in %s", sub[1], where)
		}
		m = strings.TrimPrefix(m, "yaml: ")
		fe.Limit = m
		errs = append(errs, fe)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}
