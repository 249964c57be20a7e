package sql_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestSourceRetractions runs COUNTER with MAX CARDINALITY, whose ticks
// retract the value that leaves the window, through the engine: the
// append relation must find and delete the retracted rows, before and
// after a restart rebuilds its contents from the store, and a view over it
// must follow.
func TestSourceRetractions(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE SOURCE c FROM LOAD GENERATOR COUNTER (TICK INTERVAL '5ms', MAX CARDINALITY 3)")
	exec(t, conn, "CREATE MATERIALIZED VIEW s AS SELECT count(*) AS n, sum(counter) AS total, min(counter) AS lo FROM c")
	checkWindow(t, conn, 10)
	srv.Stop()

	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	var off int64
	if err := conn.QueryRow(ctx, `SELECT "offset" FROM c_progress`).Scan(&off); err != nil {
		t.Fatal(err)
	}
	checkWindow(t, conn, off+10)
}

// checkWindow waits until the counter has ticked at least after times
// and checks, in one read, that the relation holds exactly the last three
// values and that the view agrees.
func checkWindow(t *testing.T, conn *pgx.Conn, after int64) {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var off, n, total, lo, vn, vtotal, vlo int64
		err := conn.QueryRow(ctx, `SELECT coalesce((SELECT "offset" FROM c_progress), 0), count(*), coalesce(sum(counter), 0), coalesce(min(counter), 0),
			(SELECT n FROM s), coalesce((SELECT total FROM s), 0), coalesce((SELECT lo FROM s), 0) FROM c`).Scan(&off, &n, &total, &lo, &vn, &vtotal, &vlo)
		if err != nil {
			t.Fatal(err)
		}
		if off < 3 {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		if n != 3 || lo != off-2 || total != 3*off-3 {
			t.Fatalf("after %d ticks the counter holds %d rows from %d summing to %d, want 3 from %d", off, n, lo, total, off-2)
		}
		if vn != n || vtotal != total || vlo != lo {
			t.Fatalf("view says %d rows from %d summing to %d, the relation %d from %d summing to %d", vn, vlo, vtotal, n, lo, total)
		}
		if off >= after {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d ticks after 30s", off)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSourceSomeTables creates a multi-table load generator for some of
// its tables: only those get relations, the source itself holds no rows,
// and the tables left out are not ingested anywhere (their rows once
// landed in the source's own relation, under another table's columns).
// A restart wires the outputs the same way.
func TestSourceSomeTables(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE SOURCE a FROM LOAD GENERATOR AUCTION (TICK INTERVAL '10ms') FOR TABLES (bids AS b)")
	waitRows := func(conn *pgx.Conn) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			var n int64
			if err := conn.QueryRow(ctx, "SELECT count(*) FROM b").Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n > 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("no bids arrived")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	check := func(conn *pgx.Conn) {
		t.Helper()
		waitRows(conn)
		if got := rows(t, conn, "SELECT relname FROM pg_class WHERE relname IN ('a', 'a_errors', 'a_progress', 'b', 'bids', 'auctions') ORDER BY 1"); got != "a\na_errors\na_progress\nb" {
			t.Errorf("relations of the source: %q", got)
		}
		if _, err := conn.Exec(ctx, "SELECT * FROM a"); err == nil {
			t.Error("the source itself is readable as a relation")
		}
	}
	check(conn)
	srv.Stop()
	srv = testserver.Start(t, testserver.Options{Dir: dir})
	check(connect(t, srv.URL))
}
