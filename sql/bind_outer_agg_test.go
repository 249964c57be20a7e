package sql_test

import (
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestOuterAggregateRefused covers what sqllogictest cannot check
// against PostgreSQL: an aggregate in a subquery whose arguments (FILTER
// and ORDER BY included) reference columns of an enclosing query only,
// which PostgreSQL computes in that query, is refused (0A000) rather
// than computed per row of its own query, a different answer; an
// aggregate that also references its own query's columns, or none at
// all, is its own query's, as in PostgreSQL.
func TestOuterAggregateRefused(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE x (p int, r int)")
	exec(t, conn, "CREATE TABLE a (t int)")
	exec(t, conn, "INSERT INTO x VALUES (1, 3), (2, 4)")
	exec(t, conn, "INSERT INTO a VALUES (2)")
	checkQueries(t, conn, []queryCase{
		{sql: "SELECT (SELECT max(x.r)) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT sum(x.r) FROM a) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT count(*) FILTER (WHERE x.r > 3) FROM a) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT 1 FROM a GROUP BY a.t HAVING min(x.r) > 0) FROM x", code: "0A000"},
		{sql: "SELECT (SELECT sum(x.r + a.t) FROM a) FROM x ORDER BY 1", want: "5\n6"},
		{sql: "SELECT (SELECT string_agg(a.t::text, ',' ORDER BY x.r) FROM a) FROM x", want: "2\n2"},
		{sql: "SELECT (SELECT count(*) FROM a WHERE a.t < x.r) FROM x", want: "1\n1"},
		{sql: "SELECT (SELECT max(y.r) FROM x y WHERE y.p <> x.p) FROM x ORDER BY 1", want: "3\n4"},
	})
}
