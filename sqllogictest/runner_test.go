package sqllogictest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// These tests run the runner end to end against a real PostgreSQL 15 that
// they start themselves: they need neither streamdb nor any other server,
// and they prove the runner. They are skipped in -short mode and when the
// PostgreSQL binaries are absent.

func runFiles(t *testing.T, cfg Config, paths ...string) (Summary, string) {
	t.Helper()
	var out bytes.Buffer
	cfg.Out = &out
	sum, err := RunFiles(context.Background(), cfg, paths)
	if err != nil {
		t.Fatalf("RunFiles: %v\n%s", err, out.String())
	}
	return sum, out.String()
}

// TestPostgres runs our suites and SQLite's select1.test against
// PostgreSQL in both modes; PostgreSQL must pass all of them.
func TestPostgres(t *testing.T) {
	url := needPostgres(t)
	expected, err := LoadExpectedFailures("expected-failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"suites", "testdata/runner/protocol.slt"}
	if dir := CorpusDir(); dir != "" {
		paths = append(paths, filepath.Join(dir, "select1.test"))
	} else {
		t.Log("SQLite sqllogictest corpus not found (set SLT_CORPUS): running our suites only")
	}
	modes := []Mode{Batch}
	if incrementalSupported {
		modes = append(modes, Incremental)
	}
	for _, mode := range modes {
		t.Run(mode.String(), func(t *testing.T) {
			sum, out := runFiles(t, Config{URL: url, Mode: mode, Expected: expected, RefreshViews: true, Verbose: true}, paths...)
			t.Log("\n" + out)
			if sum.Failed != 0 || sum.Passed == 0 || len(sum.Notes) != 0 {
				t.Errorf("%d passed, %d failed, %d notes; want all to pass", sum.Passed, sum.Failed, len(sum.Notes))
			}
			if !strings.HasSuffix(out, "\n"+strconv.Itoa(sum.Passed)+" passed, 0 failed, "+strconv.Itoa(sum.Skipped)+" skipped\n") {
				t.Errorf("the report does not end with the summary line")
			}
			if mode == Incremental && sum.Views == 0 {
				t.Errorf("incremental mode created no views")
			}
		})
	}
}

// TestFailuresDetected checks that every kind of failure is caught and
// that the expected-failure list works both ways.
func TestFailuresDetected(t *testing.T) {
	url := needPostgres(t)
	const path = "testdata/runner/failures.slt"
	list := "failures.slt:10  wrong result on purpose\n" +
		"runner/failures.slt:52  passes, so an unexpected pass\n" +
		"failures.slt:3  no record starts here\n" +
		"failures.slt:16  [incremental] applies to the other mode only\n"
	expected, err := ParseExpectedFailures(strings.NewReader(list), "list")
	if err != nil {
		t.Fatal(err)
	}
	sum, out := runFiles(t, Config{URL: url, Expected: expected, Verbose: true}, path)
	t.Log("\n" + out)
	var failed []int
	for _, f := range sum.Files[0].Failures {
		if !f.Listed {
			failed = append(failed, f.Line)
		}
	}
	if want := []int{6, 16, 20, 24, 28, 37, 43, 46}; !slices.Equal(failed, want) {
		t.Errorf("failed lines %v, want %v", failed, want)
	}
	if sum.Failed != 8 || sum.ExpectedFailures != 1 || sum.Passed != 4 {
		t.Errorf("%d passed, %d failed, %d expected failures; want 4, 8, 1", sum.Passed, sum.Failed, sum.ExpectedFailures)
	}
	if len(sum.Notes) != 2 || !strings.Contains(sum.Notes[0], "failures.slt:3: listed in list:3 but no record") ||
		!strings.Contains(sum.Notes[1], "failures.slt:52: unexpected pass") {
		t.Errorf("notes = %q", sum.Notes)
	}
	if sum.OK() {
		t.Error("a run with failures is OK")
	}
}

// TestRewrite rewrites a copy of testdata/runner/rewrite.slt and compares
// it with rewrite.golden; a second run over the result must pass untouched.
func TestRewrite(t *testing.T) {
	url := needPostgres(t)
	in, err := os.ReadFile("testdata/runner/rewrite.slt")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rewrite.slt")
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	sum, out := runFiles(t, Config{URL: url, Rewrite: true}, path)
	if sum.Failed != 0 || sum.Files[0].Rewritten != 5 {
		t.Fatalf("rewrite run: %d failed, %d rewritten; want 0, 5\n%s", sum.Failed, sum.Files[0].Rewritten, out)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const golden = "testdata/runner/rewrite.golden"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("rewritten file differs from %s (run with -update to accept):\n%s", golden, got)
	}
	sum, out = runFiles(t, Config{URL: url, Rewrite: true}, path)
	if sum.Failed != 0 || sum.Files[0].Rewritten != 0 {
		t.Errorf("second run: %d failed, %d rewritten; want 0, 0\n%s", sum.Failed, sum.Files[0].Rewritten, out)
	}
}

// TestCleanup checks that a file leaves no table behind, and that a table
// left by an earlier crashed run does not break the next one.
func TestCleanup(t *testing.T) {
	url := needPostgres(t)
	ctx := context.Background()
	s, err := connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if _, err := s.exec(ctx, "CREATE TABLE basic_t (leftover INT)"); err != nil {
		t.Fatal(err)
	}
	sum, out := runFiles(t, Config{URL: url}, "suites/basic.slt")
	if sum.Failed != 0 {
		t.Fatalf("basic.slt failed over a leftover table:\n%s", out)
	}
	var rs resultSet
	if err := s.query(ctx, "SELECT count(*) FROM pg_class WHERE relname = 'basic_t' OR relname LIKE 'slt_mv_%'", "I", &rs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(rs.values, []string{"0"}) {
		t.Errorf("objects left behind: %v", rs.values)
	}
}
