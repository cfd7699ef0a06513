package report_test

import (
	"testing"

	"github.com/servesim/servesim/internal/cliflag"
	"github.com/servesim/servesim/report"
)

// TestFlagsOptions: --title becomes the page's title, --labels names the
// runs in order (trimmed), and a count unlike the files' is an error.
func TestFlagsOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args   []string
		title  string
		labels []string
		err    string
	}{
		{nil, "", []string{"a.json", "b.json"}, ""},
		{[]string{"--title", "T", "--labels", "sim, real"}, "T", []string{"sim", "real"}, ""},
		{[]string{"--labels", "one"}, "", nil, "--labels has 1 names for 2 files"},
	}
	for _, tt := range tests {
		var f report.Flags
		fs := cliflag.NewFlagSet("report")
		f.Define(fs)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		runs := []*report.Run{{Label: "a.json"}, {Label: "b.json"}}
		opts, err := f.Options(runs)
		switch {
		case tt.err != "":
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.args, err, tt.err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case opts.Title != tt.title || runs[0].Label != tt.labels[0] || runs[1].Label != tt.labels[1]:
			t.Errorf("%q: title %q, labels %q %q; want %q, %q", tt.args, opts.Title, runs[0].Label, runs[1].Label, tt.title, tt.labels)
		}
		if f.Out != "report.html" {
			t.Errorf("%q: Out %q, want the default report.html", tt.args, f.Out)
		}
	}
}
