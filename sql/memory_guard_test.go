package sql_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestStatementMemoryLimit runs a query whose one-tick dataflow would
// hold about 5 GB under a memory limit a little above the server's heap:
// the query fails with 53200 soon, and the session, its tables and its
// views work on.
func TestStatementMemoryLimit(t *testing.T) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	srv := testserver.Start(t, testserver.Options{MemoryLimit: s[0].Value.Uint64() + 300<<20})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (a int)")
	exec(t, conn, "CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM t")
	start := time.Now()
	_, err := conn.Exec(context.Background(), "SELECT count(*) FROM generate_series(1, 20000000)")
	if sqlState(err) != "53200" {
		t.Fatalf("a query over the memory limit: %v, want 53200", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the query failed after %v", d)
	}
	exec(t, conn, "INSERT INTO t VALUES (1), (2)")
	if got := rows(t, conn, "SELECT n FROM n"); got != "2" {
		t.Errorf("view after the failed query = %s", got)
	}
}
