package pgwire

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var pgAddr = flag.String("pgaddr", "", "address of a real PostgreSQL 15 (trust auth, user postgres) to check the scripts against")

// TestScriptsPostgres plays every script against a real PostgreSQL server and
// checks that it answers as the golden file says, so the goldens record
// PostgreSQL's behaviour and not just ours. Scripts whose header contains
// "postgres: skip" exercise the fake engine's test-only statements. With
// -update it rewrites the goldens from PostgreSQL's answers.
func TestScriptsPostgres(t *testing.T) {
	if *pgAddr == "" {
		t.Skip("-pgaddr not set")
	}
	for _, path := range scriptFiles(t) {
		if strings.Contains(scriptHeader(path), "postgres: skip") {
			continue
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			got, want := runScriptFile(t, *pgAddr, path)
			if *update {
				if err := os.WriteFile(path, []byte(scriptHeader(path)+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				if os.Getenv("PGWIRE_SHOW") != "" {
					t.Logf("postgres:\n%s", got)
				}
				t.Errorf("postgres answers differently:\n%s", lineDiff(want, got))
			}
		})
	}
}

// lineDiff renders a line diff of want and got: lines only in want start
// with "-", lines only in got with "+", and shared lines are elided.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	// lcs[i][j] is the length of the longest common subsequence of w[i:] and g[j:].
	lcs := make([][]int, len(w)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(g)+1)
	}
	for i := len(w) - 1; i >= 0; i-- {
		for j := len(g) - 1; j >= 0; j-- {
			if w[i] == g[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var b strings.Builder
	i, j := 0, 0
	for i < len(w) || j < len(g) {
		switch {
		case i < len(w) && j < len(g) && w[i] == g[j]:
			i++
			j++
		case j < len(g) && (i == len(w) || lcs[i][j+1] >= lcs[i+1][j]):
			b.WriteString("+ " + g[j] + "\n")
			j++
		default:
			b.WriteString("- " + w[i] + "\n")
			i++
		}
	}
	return b.String()
}
