package report

import (
	"flag"
	"fmt"
	"strings"

	"github.com/servesim/servesim/internal/cliflag"
)

// Flags are servesim report's flags: where the page goes, its title and
// the runs' legend names.
type Flags struct {
	// Out is the page's file ("-": stdout).
	Out           string
	title, labels string
	// Quiet drops the note on stderr.
	Quiet bool
}

// Define puts the flags on fs and returns their help groups.
func (f *Flags) Define(fs *flag.FlagSet) []cliflag.Group {
	fs.StringVar(&f.Out, "o", "report.html", "write the page to `FILE` (- for stdout)")
	fs.StringVar(&f.Out, "output", "report.html", "same as -o")
	fs.StringVar(&f.title, "title", "", "page `title` (default: servesim report)")
	fs.StringVar(&f.labels, "labels", "", "comma-separated legend `names` of the files, in order (default: the file names)")
	fs.BoolVar(&f.Quiet, "quiet", false, "no note on stderr")
	return []cliflag.Group{{Title: "flags", Names: []string{"o", "output", "title", "labels", "quiet"}}}
}

// Options returns the page's options, after naming runs (one per file,
// in order) by --labels when given.
func (f *Flags) Options(runs []*Run) (Options, error) {
	if f.labels != "" {
		labels := strings.Split(f.labels, ",")
		if len(labels) != len(runs) {
			return Options{}, fmt.Errorf("--labels has %d names for %d files", len(labels), len(runs))
		}
		for i, l := range labels {
			runs[i].Label = strings.TrimSpace(l)
		}
	}
	return Options{Title: f.title}, nil
}
