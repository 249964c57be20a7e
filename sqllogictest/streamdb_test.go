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
// against two in-process streamdb servers, in batch and in incremental
// mode. The
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
			other := testserver.Start(t, testserver.Options{})
			var out strings.Builder
			cfg := Config{URL: srv.URL, Mode: mode, Engine: StreamdbEngine, Expected: expected, Out: &out, Workers: []Worker{{URL: other.URL}}}
			sum, err := RunFiles(context.Background(), cfg, paths)
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

// TestParallelKeepsOrder runs our suites on one server and on two at
// once: the reports must list the same files with the same counts, in
// the same order.
func TestParallelKeepsOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end sqllogictest run; skipped with -short")
	}
	report := func(workers int) []string {
		srv := testserver.Start(t, testserver.Options{})
		cfg := Config{URL: srv.URL, Mode: Batch, Engine: StreamdbEngine}
		for range workers - 1 {
			cfg.Workers = append(cfg.Workers, Worker{URL: testserver.Start(t, testserver.Options{}).URL})
		}
		var out strings.Builder
		cfg.Out = &out
		if _, err := RunFiles(context.Background(), cfg, []string{"suites"}); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, l := range strings.Split(out.String(), "\n") {
			if before, _, ok := strings.Cut(l, " ("); ok && strings.HasPrefix(l, "suites/") {
				lines = append(lines, before)
			}
		}
		return lines
	}
	one, two := report(1), report(2)
	if len(one) < 2 || strings.Join(one, "\n") != strings.Join(two, "\n") {
		t.Errorf("one server:\n%s\ntwo servers:\n%s", strings.Join(one, "\n"), strings.Join(two, "\n"))
	}
}
