package parser

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/pgerr"
)

// limitCases are texts at and past the limits CheckLimits enforces,
// named, with the SQLSTATE it answers ("" for none).
func limitCases() []limitCase {
	r := strings.Repeat
	chain := func(op string, n int) string { return "SELECT 1" + r(op+"1", n) }
	return []limitCase{
		{"plus 4000", chain("+", 4000), ""},
		{"plus 4097", chain("+", 4097), "54001"},
		{"plus 24000", chain("+", 24000), "54001"},
		{"concat 5000", "SELECT 'a'" + r("||'a'", 5000), "54001"},
		{"arrow 4090", "SELECT '{}'::jsonb" + r("->'a'", 4090), ""},
		{"arrow 40000", "SELECT '{}'::jsonb" + r("->'a'", 40000), "54001"},
		{"cast 4000", "SELECT 1" + r("::int", 4000), ""},
		{"cast 40000", "SELECT 1" + r("::int", 40000), "54001"},
		{"is null 5000", "SELECT 1" + r(" IS NULL", 5000), "54001"},
		{"collate 5000", "SELECT 'a'" + r(` COLLATE "C"`, 5000), "54001"},
		{"at time zone 5000", "SELECT now()" + r(" AT TIME ZONE 'UTC'", 5000), "54001"},
		{"not 5000", "SELECT " + r("NOT ", 5000) + "true", "54001"},
		{"join 5000", "SELECT * FROM t" + r(" JOIN t ON true", 5000), "54001"},
		{"union 4000", "SELECT 1" + r(" UNION SELECT 1", 4000), ""},
		{"union 5000", "SELECT 1" + r(" UNION SELECT 1", 5000), "54001"},
		{"parentheses 9000", "SELECT " + r("(", 9000) + "1" + r(")", 9000), ""},
		{"nested plus 3000", "SELECT " + r("(1+", 3000) + "1" + r(")", 3000), ""},
		{"nested plus 5000", "SELECT " + r("(1+", 5000) + "1" + r(")", 5000), "54001"},
		{"calls 4000", "SELECT " + r("abs(", 4000) + "1" + r(")", 4000), ""},
		{"calls 5000", "SELECT " + r("abs(", 5000) + "1" + r(")", 5000), "54001"},
		{"subqueries 1000", "SELECT " + r("(SELECT ", 1000) + "1" + r(")", 1000), ""},
		{"subqueries 1100", "SELECT " + r("(SELECT ", 1100) + "1" + r(")", 1100), "54001"},
		{"chains in a list", "SELECT " + strings.Join(slicesOf(3000, "1+1+1"), ", "), ""},
		{"or 10000", "SELECT 1 WHERE " + strings.Join(slicesOf(10000, "x = 1 OR x = 2"), " OR "), ""},
		{"and 10000", "SELECT " + strings.Join(slicesOf(10000, "true"), " AND "), ""},
		{"in list 100000", "SELECT 1 IN (" + strings.Join(slicesOf(100000, "1"), ", ") + ")", ""},
		{"case branches 5000", "SELECT CASE" + r(" WHEN x = 1 THEN 1", 5000) + " END", ""},
		{"operators in strings", "SELECT '" + r("+", 100000) + "'", ""},
		{"operators in comments", "SELECT 1 /*" + r("+", 100000) + "*/", ""},
		{"statements", r("SELECT 1+1+1+1+1+1+1+1+1+1;", 1000), ""},
		{"subscripts", "SELECT a" + r("[1]", 10000) + " FROM t", ""},
		{"array 6", "SELECT " + r("ARRAY[", 6) + "1" + r("]", 6), ""},
		{"array 7", "SELECT " + r("ARRAY[", 7) + "1" + r("]", 7), "54000"},
		{"array 1000", "SELECT " + r("ARRAY[", 1000) + "1" + r("]", 1000), "54000"},
		{"sub-arrays 7", "SELECT ARRAY" + r("[", 7) + "1" + r("]", 7), "54000"},
		{"sub-arrays 6", "SELECT ARRAY" + r("[", 6) + "1" + r("]", 6) + ", ARRAY[[1,2],[3,4]]", ""},
		{"arrays in parentheses 7", "SELECT " + r("ARRAY[(", 7) + "1" + r(")]", 7), "54000"},
		{"arrays in subqueries 7", "SELECT " + r("ARRAY[(SELECT ", 7) + "1" + r(")]", 7), "54000"},
		{"arrays in calls", "SELECT " + r("ARRAY[", 4) + "array_length(" + r("ARRAY[", 4) + "1" + r("]", 4) + ", 1)" + r("]", 4), ""},
		{"subscripts of arrays", "SELECT ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[a[1][2][3]]]]]]] FROM t", ""},
		{"array types", "SELECT '{}'::int[][][][][][][][]", ""},
		{"unterminated", "SELECT '" + r("(", 10000), ""},
	}
}

// limitCase is one case of limitCases.
type limitCase struct {
	Name, Text, Code string
}

func slicesOf(n int, s string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func TestCheckLimits(t *testing.T) {
	for _, c := range limitCases() {
		err := CheckLimits(c.Text)
		got := ""
		if err != nil {
			got = string(err.Code)
		}
		if got != c.Code {
			t.Errorf("%s: %v, want %q", c.Name, err, c.Code)
		}
	}
	err := CheckLimits(strings.Repeat("1+", 5000) + "1")
	if err == nil || err.Message != "stack depth limit exceeded" || err.Hint != `Increase the configuration parameter "max_stack_depth" (currently 2048kB), after ensuring the platform's stack depth limit is adequate.` {
		t.Errorf("PostgreSQL's error and hint: %#v", err)
	}
	err = CheckLimits("SELECT ARRAY[[[[[[[1]]]]]]]")
	if err == nil || err.Code != pgerr.ProgramLimitExceeded || err.Message != "number of array dimensions (7) exceeds the maximum allowed (6)" {
		t.Errorf("PostgreSQL's array error: %#v", err)
	}
}

func BenchmarkCheckLimits(b *testing.B) {
	text := strings.Repeat("SELECT a + b * 2, f(x, y) FROM t JOIN u ON t.id = u.id WHERE c IN (1, 2, 3);", 100)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for range b.N {
		if err := CheckLimits(text); err != nil {
			b.Fatal(err)
		}
	}
}
