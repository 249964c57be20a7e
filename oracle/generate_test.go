package oracle

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite testdata/generate.golden")

// TestGenerateGolden pins what a few small seeds generate. A change of
// the generator shows up here as a diff to review (and changes every
// seed's scenario, which is fine: seeds are reproducible within one
// version of the generator); -rewrite accepts it.
func TestGenerateGolden(t *testing.T) {
	var b strings.Builder
	for _, seed := range []int64{1, 2, 3} {
		for _, mode := range []Mode{Small, Big} {
			b.WriteString(Generate(seed, Options{Mode: mode, Views: 4, Statements: 12}).Script())
			b.WriteString("\n")
		}
	}
	const path = "testdata/generate.golden"
	if *rewrite {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("generated scenarios differ from %s (run with -rewrite to accept):\n%s", path, b.String())
	}
}

func TestGenerateDeterministic(t *testing.T) {
	for seed := int64(1); seed <= 20; seed++ {
		a := Generate(seed, Options{Mode: Big})
		b := Generate(seed, Options{Mode: Big})
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("seed %d generated two different scenarios", seed)
		}
	}
}

// TestGenerateCoverage generates many views and checks that every
// construct of the grammar shows up, so that a change of weights cannot
// silently drop a feature from the oracle.
func TestGenerateCoverage(t *testing.T) {
	var all strings.Builder
	for seed := int64(1); seed <= 120; seed++ {
		for _, v := range Generate(seed, Options{Views: 10, Statements: 1}).Views {
			all.WriteString(v.Query + "\n")
		}
	}
	text := all.String()
	for _, construct := range []string{
		" JOIN ", " LEFT JOIN ", " RIGHT JOIN ", " FULL JOIN ", " CROSS JOIN ", " USING (", " NATURAL ",
		"LATERAL (", " IN (SELECT", " NOT IN (SELECT", "EXISTS (", "NOT EXISTS (", " ANY (", " ALL (",
		"WITH w", "(VALUES ", " GROUP BY ", " HAVING ", "count(*)", "count(DISTINCT ", "sum(", "avg(",
		"min(", "max(", "bool_and(", "bool_or(", "string_agg(", "array_agg(", "jsonb_agg(", "stddev",
		"variance(", " FILTER (WHERE ", "SELECT DISTINCT ", "DISTINCT ON (", " UNION ", " UNION ALL ",
		" INTERSECT ", " EXCEPT ", " LIMIT ", " OFFSET ", "row_number() OVER (", "rank() OVER (",
		"dense_rank() OVER (", "lag(", "lead(", "first_value(", "last_value(", " ROWS BETWEEN ",
		" RANGE BETWEEN ", "PARTITION BY ", ".rn <", "CASE WHEN ", "COALESCE(", "NULLIF(", " IS NOT DISTINCT FROM ",
		" BETWEEN ", " LIKE ", " IS UNKNOWN", " NULLS FIRST", "DESC",
		"WITH RECURSIVE ", " UNION SELECT ", " GROUPS BETWEEN ", " EXCLUDE ", " EXCLUDE GROUP",
		" EXCLUDE TIES", "ROW(", "jsonb_agg(ROW(",
		// Interval qualifiers, ordered aggregates over windows, subqueries
		// in CASE branches, and strict calls of NULL (issue 28).
		"' YEAR", "' MONTH", "' MINUTE", " YEAR TO MONTH", " DAY TO HOUR", " MINUTE TO SECOND", " SECOND(", " AS INTERVAL ",
		"string_agg(", "jsonb_object_agg(", " <> 0 THEN (SELECT ", " = 0 THEN ", " <> 0 AND EXISTS (", " / 0) * CAST(NULL AS int)",
		" / 0) IN (NULL)", " BETWEEN NULL AND ",
	} {
		if !strings.Contains(text, construct) {
			t.Errorf("no generated view contains %q", construct)
		}
	}
	// A LATERAL item inside a JOIN after a comma, which reads the items
	// before the comma too.
	if !regexp.MustCompile(`, t\d AS a\d+ JOIN LATERAL \(`).MatchString(text) {
		t.Error("no generated view has a JOIN LATERAL after a comma")
	}
	// A RANGE frame with a numeric offset, a window aggregate with FILTER,
	// a whole row of a FROM item, an ordered aggregate over a window.
	for what, re := range map[string]string{
		"RANGE frame with an offset":      ` RANGE BETWEEN [0-9.]+ (PRECEDING|FOLLOWING)`,
		"RANGE frame over time":           ` RANGE BETWEEN [^)]*INTERVAL '`,
		"window aggregate FILTER":         `\) FILTER \(WHERE [^)]*\) OVER \(`,
		"whole row of a FROM item":        `SELECT (DISTINCT )?(\w+, )*a\d+ AS c\d`,
		"short-form row constructor":      `\(a\d+\.\w+, [^()]*\) AS c\d`,
		"ordered aggregate over a window": `(array_agg|jsonb_agg|jsonb_object_agg|string_agg)\([^()]*(\([^()]*\)[^()]*)*\) OVER \(`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no generated view has a %s", what)
		}
	}
	// An aggregate of a grouped query in a subquery of its own.
	if !regexp.MustCompile(`\(SELECT (sum|avg|min|max|count)\([^()]*a\d+\.`).MatchString(text) {
		t.Error("no generated view has an aggregate over the enclosing query's columns in a subquery")
	}
	counts := map[string]int{}
	for _, line := range strings.Split(text, "\n") {
		for _, k := range []string{"JOIN", "GROUP BY", "OVER (", "(SELECT", "LIMIT"} {
			if strings.Contains(line, k) {
				counts[k]++
			}
		}
	}
	t.Log(fmt.Sprint(counts))
}
