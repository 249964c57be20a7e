package sql_test

import "testing"

// TestRecursiveExplain checks the plans of the SQL of issue 28 against
// testdata/recursive_explain.txt: a recursive query's base and step over
// its working table (in a correlated subquery, carrying the enclosing
// row's columns), whole rows and their outer-join markers, frames and
// FILTER of window aggregates. -rewrite regenerates the file.
func TestRecursiveExplain(t *testing.T) {
	checkExplainGolden(t, "recursive_explain.txt", "# EXPLAIN of recursive queries, row values and window frames (go test ./sql -run TestRecursiveExplain -rewrite).", []string{
		"CREATE TABLE edge (src int, dst int)",
		"CREATE TABLE node (id int PRIMARY KEY, name text)",
	})
}
