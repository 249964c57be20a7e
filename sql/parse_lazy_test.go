package sql_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestManyStatements runs query strings of more statements than are
// parsed at once (each is parsed when it runs): a syntax error in the
// last still runs none, and errors point into the whole string.
func TestManyStatements(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (a int)")
	pc := conn.PgConn()
	inserts := strings.Repeat("INSERT INTO t VALUES (1);\n", 100)
	_, err := pc.Exec(context.Background(), inserts+"SELEC 2;").ReadAll()
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42601" || int(pe.Position) != len(inserts)+1 {
		t.Fatalf("syntax error in the last statement: %v", err)
	}
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "0" {
		t.Fatalf("%s rows inserted before a syntax error", got)
	}
	selects := strings.Repeat("SELECT 1;\n", 100)
	_, err = pc.Exec(context.Background(), inserts+selects+"SELECT nosuch;").ReadAll()
	if !errors.As(err, &pe) || pe.Code != "42703" || int(pe.Position) != len(inserts)+len(selects)+len("SELECT n") {
		t.Fatalf("an error in the last statement: %v", err)
	}
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "0" {
		t.Fatalf("%s rows inserted by a failed implicit transaction", got)
	}
	rs, err := pc.Exec(context.Background(), inserts+selects).ReadAll()
	if err != nil || len(rs) != 200 || rs[199].CommandTag.String() != "SELECT 1" {
		t.Fatalf("%d results, %v", len(rs), err)
	}
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "100" {
		t.Fatalf("%s rows", got)
	}
	// streamdb's own statements among them are parsed at once, in order.
	mixed := selects + "SHOW SOURCES;\n" + selects
	rs, err = pc.Exec(context.Background(), mixed).ReadAll()
	if err != nil || len(rs) != 201 || len(rs[100].Rows) != 0 || rs[200].CommandTag.String() != "SELECT 1" {
		t.Fatalf("mixed: %d results, %v", len(rs), err)
	}
	// A syntax error past the first megabyte checked still runs none, and
	// its position counts from the start of the string.
	long := strings.Repeat(inserts, 500)
	_, err = pc.Exec(context.Background(), long+"SELEC 2;").ReadAll()
	if !errors.As(err, &pe) || pe.Code != "42601" || int(pe.Position) != len(long)+1 {
		t.Fatalf("syntax error past a megabyte: %v", err)
	}
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "100" {
		t.Fatalf("%s rows after a failed long string", got)
	}
}
