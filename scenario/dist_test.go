package scenario

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/servesim/servesim/distribution"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParseDist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in        string
		mean, cv2 float64
	}{
		{"exp:0.05", 0.05, 1},
		{"exponential:50ms", 0.05, 1},
		{"det:20ms", 0.02, 0},
		{"const:3", 3, 0},
		{"uniform:10ms,30ms", 0.02, (0.02 * 0.02 / 12) / (0.02 * 0.02)},
		{"gamma:0.05,2", 0.05, 4},
		{"lognormal:50ms,0.5", 0.05, 0.25},
		{"mix:0.02@0.8,0.18@0.2", 0.052, (0.8*0.02*0.02 + 0.2*0.18*0.18 - 0.052*0.052) / (0.052 * 0.052)},
		{" det:200us ", 0.0002, 0},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			d, err := ParseDist(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(d.Mean()-tt.mean) > 1e-12*tt.mean {
				t.Errorf("mean = %v, want %v", d.Mean(), tt.mean)
			}
			if math.Abs(distribution.CV2(d)-tt.cv2) > 1e-9 {
				t.Errorf("cv² = %v, want %v", distribution.CV2(d), tt.cv2)
			}
		})
	}
}

func TestParseDistErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"exp", "want KIND:PARAMS"},
		{"poisson:1", `unknown kind "poisson"`},
		{"exp:0", "mean 0 must be > 0"},
		{"exp:-1", "not a finite time"},
		{"exp:1,2", "exp takes 1 parameter(s), got 2"},
		{"gamma:1", "gamma takes 2 parameter(s), got 1"},
		{"gamma:1,x", `cv "x" is not a number`},
		{"mix:0.02", "want VALUE@PROB"},
		{"mix:0.02@0.5", "mixture.weights: sum to 0.5"},
		{"uniform:2,1", "uniform.max: 1 must be >= min 2"},
		{"det:NaN", "not a finite time"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			_, err := ParseDist(tt.in)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseDist(%q) = %v, want an error containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestParseBytes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
	}{
		{"8589934592", 8 << 30}, {"8GiB", 8 << 30}, {"8gib", 8 << 30}, {"6.41GiB", 6.41 * (1 << 30)},
		{"512MiB", 512 << 20}, {"16GB", 16e9}, {"16G", 16e9}, {"1e9", 1e9}, {"100 KB", 1e5}, {"7b", 7},
	}
	for _, tt := range tests {
		if got, err := ParseBytes(tt.in); err != nil || got != tt.want {
			t.Errorf("ParseBytes(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "GiB", "-1", "lots", "inf", "NaN"} {
		if _, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) accepted", bad)
		}
	}
}

func TestParseRate(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"inf", "Inf", ".inf", "+inf"} {
		if r, err := ParseRate(in); err != nil || !math.IsInf(r, 1) {
			t.Errorf("ParseRate(%q) = %v, %v", in, r, err)
		}
	}
	if r, err := ParseRate("2.5"); err != nil || r != 2.5 {
		t.Errorf("ParseRate(2.5) = %v, %v", r, err)
	}
	for _, bad := range []string{"0", "-1", "abc", "", "NaN", "-inf"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

func TestParseSeconds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
	}{{"0.05", 0.05}, {"50ms", 0.05}, {"1.5s", 1.5}, {"200us", 2e-4}, {"200µs", 2e-4}, {"0", 0}}
	for _, tt := range tests {
		if got, err := ParseSeconds(tt.in); err != nil || math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("ParseSeconds(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}
