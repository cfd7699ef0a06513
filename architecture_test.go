package servesim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/servesim/servesim"

// goPackage is the part of `go list -json` this test reads.
type goPackage struct {
	ImportPath string
	Deps       []string // every package it imports, transitively
}

// listPackages runs `go list -json ./...` from the repository
// root and returns the project's packages.
func listPackages(t *testing.T) []goPackage {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	var pkgs []goPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; want the whole project", len(pkgs))
	}
	return pkgs
}

// projectDeps returns the project packages among deps, module prefix cut.
func projectDeps(deps []string) []string {
	var out []string
	for _, d := range deps {
		if rel, ok := strings.CutPrefix(d, module+"/"); ok {
			out = append(out, rel)
		} else if d == module {
			out = append(out, ".")
		}
	}
	return out
}

// TestImportGraph enforces the package map of docs/architecture.md: the
// event engine stands alone, the measurement side knows nothing of
// engines, workloads, servers or costs, the cost model stands alone, and
// no library package reaches into cmd/.
func TestImportGraph(t *testing.T) {
	t.Parallel()
	// allowed lists, for each constrained package, the project packages it
	// may import (transitively). internal/ helpers and fielderr (the one
	// field-error type, which imports nothing of the project) are always
	// allowed.
	allowed := map[string][]string{
		"sim/event":            {},
		"sim/metrics":          {},
		"cost":                 {},
		"distribution":         {},
		"workload":             {"distribution"},
		"report/chart":         {"report/chart/palette"},
		"report/chart/palette": {},
		"dataset":              {"workload", "distribution"},
		"specdecode":           {"cost"},
		"hfmodels":             {"cost"},
		"fielderr":             {},
	}
	seen := map[string]bool{}
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		seen[rel] = true
		deps := projectDeps(p.Deps)
		if !strings.HasPrefix(rel, "cmd/") {
			for _, d := range deps {
				if strings.HasPrefix(d, "cmd/") {
					t.Errorf("library package %s imports %s", p.ImportPath, d)
				}
			}
		}
		ok, constrained := allowed[rel]
		if !constrained {
			continue
		}
		for _, d := range deps {
			if strings.HasPrefix(d, "internal/") || d == "fielderr" {
				continue
			}
			if !slices.Contains(ok, d) {
				t.Errorf("%s imports %s; it may import only %v (and internal/)", rel, d, ok)
			}
		}
	}
	for rel := range allowed {
		if !seen[rel] {
			t.Errorf("package %s is gone: update this test and docs/architecture.md", rel)
		}
	}
}
