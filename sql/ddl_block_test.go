package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestDDLInBlock covers what ddl_in_block.slt cannot, because PostgreSQL
// allows it: CREATE SOURCE refused inside a block, DROP and CREATE OR
// REPLACE taken back with the block, and a session that disconnects
// mid-block taking its CREATEs back.
func TestDDLInBlock(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE keep (x int)")
	exec(t, conn, "CREATE VIEW keep_v AS SELECT x FROM keep")
	for _, tc := range []struct{ sql, code string }{
		{"CREATE SOURCE c FROM LOAD GENERATOR COUNTER", "25001"},
	} {
		exec(t, conn, "BEGIN")
		_, err := conn.Exec(context.Background(), tc.sql)
		if got := sqlState(err); got != tc.code {
			t.Errorf("%s in a block: SQLSTATE %q (%v), want %s", tc.sql, got, err, tc.code)
		}
		exec(t, conn, "ROLLBACK")
	}
	exec(t, conn, "INSERT INTO keep VALUES (1), (2)")
	exec(t, conn, "BEGIN")
	exec(t, conn, "DROP TABLE IF EXISTS nothing_here")
	exec(t, conn, "CREATE OR REPLACE VIEW keep_v AS SELECT x, 1 AS y FROM keep")
	exec(t, conn, "DROP VIEW keep_v")
	exec(t, conn, "DROP TABLE keep")
	exec(t, conn, "ROLLBACK")
	if got := rows(t, conn, "SELECT count(*) FROM keep_v"); got != "2" {
		t.Errorf("keep_v after a rolled-back DROP and REPLACE: %s rows, want 2", got)
	}

	other := connect(t, srv.URL)
	exec(t, other, "BEGIN")
	exec(t, other, "CREATE TABLE abandoned (x int)")
	exec(t, other, "INSERT INTO abandoned VALUES (1)")
	other.Close(context.Background())
	deadline := time.Now().Add(5 * time.Second)
	for rows(t, conn, "SELECT count(*) FROM pg_class WHERE relname = 'abandoned'") != "0" {
		if time.Now().After(deadline) {
			t.Fatal("a table created in a block whose session disconnected is still there")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
