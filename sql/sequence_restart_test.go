package sql_test

import (
	"context"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestSequencesSurviveRestart checks that a clean restart resumes every
// sequence where it stopped, serial columns included.
func TestSequencesSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE s (id serial PRIMARY KEY, v text)")
	exec(t, conn, "CREATE SEQUENCE free START 100")
	exec(t, conn, "INSERT INTO s (v) VALUES ('a'), ('b'), ('c')")
	if got := rows(t, conn, "SELECT nextval('free'), nextval('free')"); got != "100|101" {
		t.Fatalf("nextval = %s", got)
	}
	conn.Close(context.Background())
	srv.Stop()
	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	if got := rows(t, conn, "INSERT INTO s (v) VALUES ('d') RETURNING id"); got != "4" {
		t.Errorf("serial after restart = %s, want 4", got)
	}
	if got := rows(t, conn, "SELECT nextval('free')"); got != "102" {
		t.Errorf("sequence after restart = %s, want 102", got)
	}
}
