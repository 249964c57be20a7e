package sql_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestPgSleep checks that pg_sleep waits, returns void, and ends early
// when statement_timeout or a cancel request stops the statement.
func TestPgSleep(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	start := time.Now()
	if got := rows(t, conn, "SELECT pg_sleep(0.2), pg_sleep(-1), pg_sleep(NULL) IS NULL"); got != "||true" {
		t.Errorf("pg_sleep: %q", got)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Errorf("pg_sleep(0.2) returned after %v", d)
	}
	exec(t, conn, "SET statement_timeout = 200")
	start = time.Now()
	_, err := conn.Exec(context.Background(), "SELECT pg_sleep(60)")
	if got := sqlState(err); got != "57014" || !strings.Contains(err.Error(), "statement timeout") {
		t.Fatalf("pg_sleep(60) under a timeout: %v, want 57014", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the timeout ended pg_sleep after %v", d)
	}
	exec(t, conn, "SET statement_timeout = 0")
	exec(t, conn, "CREATE TABLE t (a int)")
	if _, err := conn.Exec(context.Background(), "CREATE MATERIALIZED VIEW v AS SELECT pg_sleep(a) FROM t"); err == nil {
		t.Error("a materialized view calling pg_sleep was created")
	}
}
