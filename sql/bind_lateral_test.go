package sql_test

import (
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestLateralInsideJoin covers what sqllogictest/suites/relational.slt
// cannot check against PostgreSQL: a LATERAL item inside a JOIN sees the
// JOIN's left side and the FROM items of a JOIN around it, and its
// reference to a FROM item before the JOIN, which PostgreSQL allows, is
// refused as unsupported (0A000), not as a missing table.
func TestLateralInsideJoin(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE x (p int, r int)")
	exec(t, conn, "CREATE TABLE a (s int, t int)")
	exec(t, conn, "INSERT INTO x VALUES (1, 3)")
	exec(t, conn, "INSERT INTO a VALUES (1, 2)")
	checkQueries(t, conn, []queryCase{
		{sql: "SELECT z FROM x, a JOIN LATERAL (SELECT a.t + 1 AS z) l ON true", want: "3"},
		{sql: "SELECT z FROM x CROSS JOIN a JOIN LATERAL (SELECT a.t + x.r AS z) l ON true", want: "5"},
		{sql: "SELECT z FROM x, a JOIN LATERAL (SELECT x.r AS z) l ON true", code: "0A000"},
		{sql: "SELECT z FROM x, (a CROSS JOIN LATERAL (SELECT a.t + x.r AS z) l)", code: "0A000"},
		{sql: "SELECT z FROM x, a JOIN (SELECT x.r AS z) l ON true", code: "42P01"},
		{sql: "SELECT z FROM x, a JOIN LATERAL (SELECT q.r AS z) l ON true", code: "42P01"},
	})
}
