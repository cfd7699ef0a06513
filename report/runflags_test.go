package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servesim/servesim/internal/cliflag"
)

// TestRunFlags: run's and merge's output flags are checked (a shard
// writes JSON only), and Write prints the format chosen and says on
// Notes which files it wrote.
func TestRunFlags(t *testing.T) {
	t.Parallel()
	out, rows := readRunFixture(t)
	plot := filepath.Join(t.TempDir(), "sweep.svg")
	tests := []struct {
		args  []string
		shard bool
		err   string
		head  string
		notes string
	}{
		{nil, false, "", "", ""},
		{[]string{"--format", "csv"}, false, "", rows0CSV(t), ""},
		{[]string{"--format", "json"}, false, "", "{", ""},
		{nil, true, "", "{", ""},
		{[]string{"--format", "xml"}, false, `--format "xml": want table, csv or json`, "", ""},
		{[]string{"--plot", "a.gif"}, false, "--plot: ", "", ""},
		{[]string{"--format", "csv"}, true, "--shard writes JSON for servesim merge; drop --format csv", "", ""},
		{[]string{"--plot", plot}, true, "--plot needs the whole sweep: plot from servesim merge instead of a shard", "", ""},
		{[]string{"--report", "r.html"}, true, "--report needs the whole sweep: write it from servesim merge instead of a shard", "", ""},
		{[]string{"--plot", plot}, false, "", "", "servesim: wrote " + plot + "\n"},
	}
	for _, tt := range tests {
		var o RunFlags
		fs := cliflag.NewFlagSet("run")
		o.Define(fs, true)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		var err error
		if tt.shard {
			err = o.CheckShard()
		}
		if err == nil {
			err = o.Check()
		}
		switch {
		case tt.err != "":
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("%q (shard %v): error %v, want %q", tt.args, tt.shard, err, tt.err)
			}
			continue
		case err != nil:
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		var w, notes bytes.Buffer
		o.Notes = &notes
		if err := o.Write(&w, out, rows); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if tt.head != "" && !strings.HasPrefix(w.String(), tt.head) {
			t.Errorf("%q: output starts %.40q, want %.40q", tt.args, w.String(), tt.head)
		}
		if notes.String() != tt.notes {
			t.Errorf("%q: notes %q, want %q", tt.args, notes.String(), tt.notes)
		}
	}
}

// rows0CSV is the first line WriteRunCSV writes for the fixture.
func rows0CSV(t *testing.T) string {
	out, rows := readRunFixture(t)
	var b bytes.Buffer
	if err := WriteRunCSV(&b, out, rows); err != nil {
		t.Fatal(err)
	}
	return strings.SplitN(b.String(), "\n", 2)[0]
}
