package servesim_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/servesim/servesim"

// goPackage is the part of `go list -json` this test reads.
type goPackage struct {
	ImportPath string
	Imports    []string // the packages it imports directly
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
		"cost/topology":        {"cost"},
		"distribution":         {},
		"workload":             {"distribution"},
		"report/chart":         {"report/chart/palette"},
		"report/chart/palette": {},
		"dataset":              {"workload", "distribution"},
		"specdecode":           {"cost"},
		"hfmodels":             {"cost"},
		"fielderr":             {},
		"jobs":                 {"sim", "sim/event", "sim/metrics", "workload", "distribution"},
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

// maxExported bounds the exported identifiers of the packages whose
// surface issue 29 shrinks; countExported says what counts. sim meets the
// issue's 40, and cost its 100 (202 before the shrink, 132 after it, 139
// with the all-to-all model merged beside it, 122, 107 with the link
// catalog moved to cost/topology, Fit removed and single-caller helpers
// unexported, then 100 with the NCCL table loader and ErrFit moved to
// cost/topology and the names no other package used unexported). Lower
// the bounds as names are unexported or moved, never raise them. sim's
// Result.Fields (the typed form of Result's JSON, which report and
// vllmbench read instead of parsing MarshalJSON's bytes back) took the
// place of Env.Fail, which no server called.
var maxExported = map[string]int{"cost": 100, "sim": 40}

// countExported returns the exported identifiers of the package in dir,
// its _test.go files left out: every exported top-level func, type, var
// and const (each name of a grouped declaration counts once), plus every
// exported method declared on an exported type. Struct fields and
// interface methods are not counted: they belong to their type. Methods
// on unexported types are not counted either: go doc does not show them.
func countExported(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if f.Name.Name == "main" || strings.HasSuffix(f.Name.Name, "_test") {
			continue
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					names = append(names, d.Name.Name)
				} else if recv := receiverName(d.Recv.List[0].Type); ast.IsExported(recv) {
					names = append(names, recv+"."+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								names = append(names, n.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names
}

// receiverName returns the type name of a method's receiver: T of T,
// *T, T[P] or *T[P, Q].
func receiverName(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// TestExportedSurface keeps the surfaces of cost and sim small (issue
// 29): at most maxExported identifiers each, counted by countExported.
// `go test -run TestExportedSurface -v .` prints the counts.
func TestExportedSurface(t *testing.T) {
	t.Parallel()
	for _, pkg := range slices.Sorted(maps.Keys(maxExported)) {
		names := countExported(t, pkg)
		t.Logf("%s: %d exported identifiers (at most %d)", pkg, len(names), maxExported[pkg])
		if len(names) > maxExported[pkg] {
			t.Errorf("%s exports %d identifiers, more than %d: unexport what no other package uses, or move it to the package that owns it\n%s",
				pkg, len(names), maxExported[pkg], strings.Join(names, " "))
		}
	}
}

// maxCLILines bounds the lines of cmd/servesim's non-test Go files (issue
// 29: the command parses, calls and prints; what a Go user could call
// lives in a package). 1,479 when the bound was set. Lower it as logic
// moves down, never raise it.
const maxCLILines = 1500

// TestCLISize keeps cmd/servesim within maxCLILines.
func TestCLISize(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("cmd", "servesim", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines += bytes.Count(b, []byte("\n"))
	}
	t.Logf("cmd/servesim: %d lines (at most %d)", lines, maxCLILines)
	if lines > maxCLILines {
		t.Errorf("cmd/servesim has %d lines of Go, more than %d: move the logic that is not parsing, calling or printing into the package that owns it", lines, maxCLILines)
	}
}

var update = flag.Bool("update", false, "rewrite the package map in docs/architecture.md from the imports")

// The package map of docs/architecture.md lies between these lines.
const (
	mapBegin = "<!-- package map: generated by TestPackageMap (go test -run TestPackageMap -update .) -->"
	mapEnd   = "<!-- end of package map -->"
)

// packageMap draws, for every library package and the CLI, the project
// packages it imports directly (internal/ helpers and fielderr, which any
// package may import, left out), the packages that import nothing of the
// project last.
func packageMap(pkgs []goPackage) string {
	var b strings.Builder
	var leaves []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		if rel == "" || strings.HasPrefix(rel, "examples/") || strings.HasPrefix(rel, "internal/") ||
			(strings.HasPrefix(rel, "cmd/") && rel != "cmd/servesim") || rel == "fielderr" {
			continue
		}
		var to []string
		for _, d := range projectDeps(p.Imports) {
			if !strings.HasPrefix(d, "internal/") && d != "fielderr" {
				to = append(to, d)
			}
		}
		if len(to) == 0 {
			leaves = append(leaves, rel)
			continue
		}
		fmt.Fprintf(&b, "%-20s ──► %s\n", rel, strings.Join(to, ", "))
	}
	fmt.Fprintf(&b, "%-20s     %s\n", "(no project import)", strings.Join(leaves, ", "))
	return b.String()
}

// TestPackageMap keeps the package map of docs/architecture.md true to
// the imports: it is the output of packageMap between mapBegin and mapEnd.
func TestPackageMap(t *testing.T) {
	t.Parallel()
	const doc = "docs/architecture.md"
	want := "```\n" + packageMap(listPackages(t)) + "```\n"
	data, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	before, rest, ok1 := strings.Cut(text, mapBegin+"\n")
	got, after, ok2 := strings.Cut(rest, mapEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no lines %q and %q around the package map", doc, mapBegin, mapEnd)
	}
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(doc, []byte(before+mapBegin+"\n"+want+mapEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the package map is not the imports' (go test -run TestPackageMap -update . rewrites it); want\n%s", doc, want)
}
