//go:build cgo

package oracle

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRegressions replays the scripts in testdata/regress: minimised
// failures found by the oracle. A script marked "-- check postgres" must
// also agree with PostgreSQL. A script marked "-- known failure: …"
// reproduces an open bug and is skipped, naming the bug, unless
// -oracle.known is given; once the bug is fixed, remove the mark and the
// script guards the fix.
func TestRegressions(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end regression scripts; skipped with -short")
	}
	paths, err := filepath.Glob("testdata/regress/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".sql"), func(t *testing.T) {
			text, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := ParseScript(string(text))
			if err != nil {
				t.Fatal(err)
			}
			if sc.Known != "" && !*knownFlag {
				t.Skip("known failure: " + sc.Known)
			}
			var opts RunOptions
			if sc.CheckPostgres {
				if opts.Postgres = postgresURL(t); opts.Postgres == "" {
					t.Log("PostgreSQL is not available: the script's views are only compared with their queries")
				}
			}
			out := runScenario(t, sc, opts)
			for _, f := range out.Failures {
				t.Error(f)
			}
			if sc.CheckPostgres {
				for _, d := range out.Disagreements {
					t.Error(d)
				}
			}
			if out.Views != len(sc.Views) {
				t.Errorf("%d of %d views created; unsupported %v, rejected %v", out.Views, len(sc.Views), out.Unsupported, out.Rejected)
			}
		})
	}
}

// loadSeeds reads a seeds file: one seed per line, '#' starts a comment.
// The file lists seeds that once failed; they run with the fixed seeds.
func loadSeeds(path string) ([]int64, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var seeds []int64
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		n, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			return nil, err
		}
		seeds = append(seeds, n)
	}
	return seeds, sc.Err()
}
