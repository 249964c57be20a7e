package sql_test

import (
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestOuterAggregateRefused covers what sqllogictest cannot check
// against PostgreSQL: the aggregates over columns of an enclosing query
// only that streamdb does not compute in that query, which PostgreSQL
// does, are refused (0A000) rather than computed in their own query, a
// different answer: over a query more than one level out, and in a
// subquery's FROM item, CTE or set operation's arm.
func TestOuterAggregateRefused(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE x (p int, r int)")
	exec(t, conn, "CREATE TABLE a (t int)")
	exec(t, conn, "INSERT INTO x VALUES (1, 3), (2, 4)")
	exec(t, conn, "INSERT INTO a VALUES (2)")
	checkQueries(t, conn, []queryCase{
		{sql: "SELECT (SELECT (SELECT max(x.r))) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT (SELECT sum(x.r) FROM a) FROM a) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT m FROM (SELECT max(x.r) AS m) d) FROM x", code: "0A000"},
		{sql: "SELECT (WITH c AS (SELECT max(x.r) AS m) SELECT m FROM c) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT max(x.r) UNION ALL SELECT 1 LIMIT 1) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT max(x.r)) FROM x", want: "4"},
	})
}

// TestScalarSubqueryInlined checks that a scalar subquery of one
// expression over the enclosing row, without FROM, is planned as that
// expression, with no join over a copy of the enclosing query, and that
// an uncorrelated one is not (PostgreSQL computes it once).
func TestScalarSubqueryInlined(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE x (p int, r int)")
	for _, tc := range []struct {
		query      string
		aggregates int
		join       bool
	}{
		{"SELECT (SELECT max(x.r)) FROM x", 1, false},
		{"SELECT p, (SELECT sum(x.r) * 2) FROM x GROUP BY p", 1, false},
		{"SELECT p, (SELECT x.r + 1) FROM x", 0, false},
		{"SELECT (SELECT random()) FROM x", 1, true},
	} {
		plan := rows(t, conn, "EXPLAIN "+tc.query)
		if n := strings.Count(plan, "Aggregate "); n != tc.aggregates || strings.Contains(plan, "Join") != tc.join {
			t.Errorf("%s: %d Aggregates, join %v, want %d, %v:\n%s", tc.query, n, strings.Contains(plan, "Join"), tc.aggregates, tc.join, plan)
		}
	}
}
