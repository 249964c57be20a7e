package sql_test

import (
	"context"
	"errors"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestStatementMemoryLimit runs, under a memory limit a little above the
// server's heap, a query that would hold gigabytes (twenty million rows
// of 200 bytes, to be sorted) while another session keeps running
// small queries: the large query alone fails with 53200, soon, the other
// session never does, a count over the same rows streams through in
// constant memory, the views work on, and the heap shrinks back.
func TestStatementMemoryLimit(t *testing.T) {
	runtime.GC()
	limit := heapObjects() + 300<<20
	srv := testserver.Start(t, testserver.Options{MemoryLimit: limit})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (a int)")
	exec(t, conn, "CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM t")
	if got := rows(t, conn, "SELECT count(*) FROM generate_series(1, 20000000)"); got != "20000000" {
		t.Fatalf("count over the limit's worth of rows = %s", got)
	}

	other := connect(t, srv.URL)
	stop := make(chan struct{})
	var otherErr atomic.Value
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			var n int64
			if err := other.QueryRow(context.Background(), "SELECT count(*) FROM generate_series(1, 200000) g WHERE g % 7 = 0").Scan(&n); err != nil {
				otherErr.Store(err)
				return
			}
		}
	}()
	start := time.Now()
	_, err := conn.Exec(context.Background(), "SELECT g, repeat('x', 200) FROM generate_series(1, 20000000) g ORDER BY g DESC")
	close(stop)
	<-done
	if sqlState(err) != "53200" {
		t.Fatalf("a query over the memory limit: %v, want 53200", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the query failed after %v", d)
	}
	if err, _ := otherErr.Load().(error); err != nil {
		t.Errorf("the other session's query failed: %v", err)
	}
	exec(t, conn, "INSERT INTO t VALUES (1), (2)")
	if got := rows(t, conn, "SELECT n FROM n"); got != "2" {
		t.Errorf("view after the failed query = %s", got)
	}
	deadline := time.Now().Add(10 * time.Second)
	for heapObjects() > limit*3/4 {
		if time.Now().After(deadline) {
			t.Fatalf("heap %d MB a while after the cancel, limit %d MB", heapObjects()>>20, limit>>20)
		}
		time.Sleep(100 * time.Millisecond)
		runtime.GC()
	}
	if err := conn.Ping(context.Background()); errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
}
