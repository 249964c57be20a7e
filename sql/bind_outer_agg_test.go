package sql_test

import (
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
