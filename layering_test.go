// Package streamdb_test holds the checks that span the whole module: the
// import rules of DESIGN.md's layout, and which packages may link cgo.
package streamdb_test

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/streamdb/streamdb/"

// pgQuery is the cgo PostgreSQL parser, which only the SQL front end
// links.
const pgQuery = "github.com/pganalyze/pg_query_go"

// layers maps a package (a path, or a path ending in /... for it and
// every package below it) to the packages of ours it must never reach,
// through its code or its tests, directly or not: imports point one way,
// sql → engine, planner → dataflow → types → pgerr.
var layers = []struct {
	pkg    string
	forbid []string
}{
	{"pgerr", []string{"..."}},
	{"types", []string{"sql", "engine", "catalog", "planner", "dataflow", "storage", "pgwire", "sources", "sinks"}},
	{"storage", []string{"..."}},
	{"dataflow", []string{"sql", "engine", "catalog", "planner", "pgwire", "storage", "sources", "sinks"}},
	{"planner/...", []string{"sql", "engine", "catalog", "pgwire", "storage", "sources", "sinks"}},
	{"catalog", []string{"sql", "engine", "pgwire", "storage", "sources", "sinks"}},
	{"engine", []string{"sql", "pgwire", "sources/kafka", "sources/loadgen", "sources/postgres", "sinks/kafka"}},
	{"sources/...", []string{"sql", "engine", "catalog", "planner", "pgwire", "storage", "sinks"}},
	{"sinks/...", []string{"sql", "engine", "catalog", "planner", "pgwire", "storage", "sources/kafka", "sources/loadgen", "sources/postgres"}},
	{"pgwire", []string{"sql", "engine", "catalog", "planner", "dataflow", "storage", "sources", "sinks"}},
	{"sql/parser", []string{"sql", "engine", "catalog", "planner", "dataflow", "storage", "pgwire", "sources", "sinks"}},
}

// cgoAllowed are the packages that may link pg_query: the front end, the
// binaries and test harnesses that run it, and the sqllogictest runner,
// which parses the statements of a suite to tell queries from the rest.
var cgoAllowed = []string{"sql", "cmd/...", "internal/testserver", "sqllogictest", "e2e", "compat", "bench/...", "oracle"}

// matches reports whether package path p (relative to the module) is pkg
// or, for a pattern ending in /..., below it.
func matches(p, pattern string) bool {
	if pattern == "..." {
		return true
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern || strings.HasPrefix(p, pattern+"/")
}

// goList runs go list in the module with args.
func goList(t *testing.T, env []string, args ...string) []string {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.Fields(string(out))
}

// deps returns the packages of ours that pkg reaches through its code and
// its tests (module-relative), and whether it reaches pg_query.
func deps(t *testing.T, pkg string) (ours []string, cgo bool) {
	for _, d := range goList(t, nil, "-deps", "-test", "-f", "{{.ImportPath}}", module+pkg) {
		d, _, _ = strings.Cut(d, " ")
		if strings.HasPrefix(d, pgQuery) {
			cgo = true
		}
		if p, ok := strings.CutPrefix(d, module); ok && !strings.HasSuffix(p, ".test") {
			ours = append(ours, p)
		}
	}
	slices.Sort(ours)
	return slices.Compact(ours), cgo
}

// TestLayering checks the import rules: every package against the layers
// it must not reach, and pg_query (cgo) only where the front end runs.
func TestLayering(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the module")
	}
	for _, full := range goList(t, nil, module+"...") {
		p, ok := strings.CutPrefix(full, module)
		if !ok {
			continue // the module's root: these checks
		}
		ds, cgo := deps(t, p)
		for _, l := range layers {
			if !matches(p, l.pkg) {
				continue
			}
			for _, d := range ds {
				if d == p {
					continue
				}
				for _, f := range l.forbid {
					if matches(d, f) && !matches(d, p) {
						t.Errorf("%s reaches %s, which it must not (see DESIGN.md, Layout)", p, d)
					}
				}
			}
		}
		allowed := slices.ContainsFunc(cgoAllowed, func(a string) bool { return matches(p, a) })
		if !allowed && cgo {
			t.Errorf("%s links pg_query (cgo); only the SQL front end may", p)
		}
	}
}

// TestBuildsWithoutCgo type-checks, with CGO_ENABLED=0, every package
// (with its tests) that does not run the SQL front end: the engine, the
// dataflow, the wire and the sources build and test without a C
// compiler.
func TestBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the module without cgo")
	}
	var pkgs []string
	for _, full := range goList(t, nil, module+"...") {
		p, ok := strings.CutPrefix(full, module)
		if ok && !slices.ContainsFunc(cgoAllowed, func(a string) bool { return matches(p, a) }) {
			pkgs = append(pkgs, full)
		}
	}
	cmd := exec.Command("go", append([]string{"vet"}, pkgs...)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go vet: %v\n%s", err, out)
	}
}
