package sql

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// TestParseLimits parses deep text of every kind that nests, at sizes
// around the limit and far past it, through the whole parse path: each
// parses, or fails with 54001 or 54000 before pg_query sees it, or with
// pg_query's own syntax error (42601, PostgreSQL's "memory exhausted"
// for nesting past bison's stack). A text that took pg_query's C stack
// down would take this test's process with it.
func TestParseLimits(t *testing.T) {
	r := strings.Repeat
	kinds := map[string]func(n int) string{
		"plus":        func(n int) string { return "SELECT 1" + r("+1", n) },
		"concat":      func(n int) string { return "SELECT 'a'" + r("||'a'", n) },
		"arrow":       func(n int) string { return "SELECT '{}'::jsonb" + r("->'a'", n) },
		"cast":        func(n int) string { return "SELECT 1" + r("::int", n) },
		"is null":     func(n int) string { return "SELECT 1" + r(" IS NULL", n) },
		"collate":     func(n int) string { return "SELECT 'a'" + r(` COLLATE "C"`, n) },
		"at":          func(n int) string { return "SELECT now()" + r(" AT TIME ZONE 'UTC'", n) },
		"not":         func(n int) string { return "SELECT " + r("NOT ", n) + "true" },
		"join":        func(n int) string { return "SELECT * FROM t" + r(" JOIN t ON true", n) },
		"cross join":  func(n int) string { return "SELECT * FROM t" + r(" CROSS JOIN t", n) },
		"union":       func(n int) string { return "SELECT 1" + r(" UNION ALL SELECT 1", n) },
		"calls":       func(n int) string { return "SELECT " + r("abs(", n) + "1" + r(")", n) },
		"nested plus": func(n int) string { return "SELECT " + r("(1+", n) + "1" + r(")", n) },
		"subqueries":  func(n int) string { return "SELECT " + r("(SELECT ", n) + "1" + r(")", n) },
		"parentheses": func(n int) string { return "SELECT " + r("(", n) + "1" + r(")", n) },
		"case":        func(n int) string { return "SELECT " + r("CASE WHEN true THEN ", n) + "1" + r(" END", n) },
		"in":          func(n int) string { return "SELECT " + r("1 IN (", n) + "1" + r(")", n) },
		"arrays":      func(n int) string { return "SELECT " + r("ARRAY[", n) + "1" + r("]", n) },
		"rows":        func(n int) string { return "SELECT " + r("ROW(", n) + "1" + r(")", n) },
		"minus":       func(n int) string { return "SELECT " + r("- ", n) + "1" },
		"and in parentheses": func(n int) string {
			return "SELECT " + r("true AND (", n) + "true" + r(")", n)
		},
	}
	for name, gen := range kinds {
		for _, n := range []int{1000, 2500, 4095, 4096, 5000, 24000, 100000} {
			_, err := parseQuery(gen(n))
			if err == nil {
				continue
			}
			switch code := pgerr.CodeOf(err); code {
			case pgerr.StatementTooComplex, pgerr.ProgramLimitExceeded, pgerr.SyntaxError:
			default:
				t.Errorf("%s %d: %v (%s)", name, n, err, code)
			}
			if strings.Contains(err.Error(), "proto:") {
				t.Errorf("%s %d: the parse tree was too deep to decode: %v", name, n, err)
			}
		}
	}
	if _, err := parseQuery("SELECT 1" + r("+1", 24000)); pgerr.CodeOf(err) != pgerr.StatementTooComplex {
		t.Errorf("24,000 terms: %v, want 54001", err)
	}
}
