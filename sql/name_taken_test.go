package sql_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestNameTaken checks that a CREATE whose name is taken says what holds
// it, naming the source a subsource belongs to, in both orders: a
// generator's subsource over a table, and a table over a subsource.
func TestNameTaken(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	ctx := context.Background()
	check := func(sql, code, msg, detail string) {
		t.Helper()
		_, err := conn.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != code || pe.Message != msg || pe.Detail != detail {
			t.Errorf("%s: %v (detail %q), want %s %s (detail %q)", sql, err, detailOf(err), code, msg, detail)
		}
	}
	exec(t, conn, "CREATE TABLE bids (a int)")
	check("CREATE SOURCE auction FROM LOAD GENERATOR AUCTION FOR ALL TABLES", "42P07", `relation "bids" already exists`, `Source "auction" would create subsource "bids"; "bids" is a table.`)
	exec(t, conn, "DROP TABLE bids")
	exec(t, conn, "CREATE SOURCE auction FROM LOAD GENERATOR AUCTION FOR ALL TABLES")
	check("CREATE TABLE bids (a int)", "42P07", `subsource "bids" already exists`, `"bids" is a subsource of source "auction".`)
	check("CREATE SOURCE auction FROM LOAD GENERATOR COUNTER", "42710", `source "auction" already exists`, `"auction" is a source.`)
}
