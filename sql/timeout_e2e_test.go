package sql_test

import (
	"context"
	"strings"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestStatementTimeout checks that statement_timeout cancels a long
// statement with PostgreSQL's error and leaves the session usable (the
// timeout is long enough for SELECT 1 on a loaded machine, far too short
// for the cross join).
func TestStatementTimeout(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "SET statement_timeout = 500")
	_, err := conn.Exec(context.Background(), "SELECT count(*) FROM generate_series(1, 5000) a, generate_series(1, 5000) b")
	if got := sqlState(err); got != "57014" || !strings.Contains(err.Error(), "statement timeout") {
		t.Fatalf("long statement: %v, want 57014 statement timeout", err)
	}
	if got := rows(t, conn, "SELECT 1"); got != "1" {
		t.Errorf("after the timeout: %s", got)
	}
	exec(t, conn, "SET statement_timeout = 0")
	if got := rows(t, conn, "SELECT count(*) FROM generate_series(1, 300) a, generate_series(1, 300) b"); got != "90000" {
		t.Errorf("without a timeout: %s", got)
	}
}
