package sqllogictest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// fastSubset is the part of the SQLite corpus make test runs in both
// modes; make slt-full runs all of it.
var fastSubset = []string{
	"select1.test",
	"select2.test",
	"index/commute/10/slt_good_10.test",
	"index/between/1/slt_good_0.test",
}

// TestStreamdb runs our own suites and a fast subset of the SQLite corpus
// against an in-process streamdb, in batch and in incremental mode. The
// corpus part is skipped, with a message, when the corpus is absent.
func TestStreamdb(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end sqllogictest run; skipped with -short")
	}
	paths := []string{"suites"}
	if dir := CorpusDir(); dir != "" {
		for _, f := range fastSubset {
			paths = append(paths, filepath.Join(dir, f))
		}
	} else {
		t.Log("SQLite corpus not found (set SLT_CORPUS or place it at ../shared/sqllogictest/sqlite); running our own suites only")
	}
	expected, err := LoadExpectedFailures("expected-failures.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []Mode{Batch, Incremental} {
		t.Run(mode.String(), func(t *testing.T) {
			srv := testserver.Start(t, testserver.Options{})
			var out strings.Builder
			sum, err := RunFiles(context.Background(), Config{URL: srv.URL, Mode: mode, Expected: expected, Out: &out}, paths)
			if err != nil {
				t.Fatal(err)
			}
			if !sum.OK() {
				t.Errorf("%d records failed:\n%s", sum.Failed, out.String())
			}
			t.Logf("%d passed, %d failed, %d skipped in %s", sum.Passed, sum.Failed, sum.Skipped, sum.Elapsed)
			if os.Getenv("SLT_VERBOSE") != "" {
				t.Log(out.String())
			}
		})
	}
}
