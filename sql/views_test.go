package sql_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestViewErrorsAsData checks that a runtime error in a view's expression
// is carried as data: reading the view fails with the error's SQLSTATE
// while the offending row exists, and reads normally once it is gone,
// while other views and tables keep working.
func TestViewErrorsAsData(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (a int, b int)")
	exec(t, conn, "CREATE MATERIALIZED VIEW q AS SELECT a / b AS r FROM t")
	exec(t, conn, "CREATE MATERIALIZED VIEW n AS SELECT count(*) AS n FROM t")
	exec(t, conn, "INSERT INTO t VALUES (10, 2), (7, 0)")
	if _, err := conn.Exec(context.Background(), "SELECT * FROM q"); sqlState(err) != "22012" {
		t.Fatalf("reading the view with a bad row: %v, want 22012", err)
	}
	if got := rows(t, conn, "SELECT n FROM n"); got != "2" {
		t.Errorf("other view = %s", got)
	}
	exec(t, conn, "DELETE FROM t WHERE b = 0")
	if got := rows(t, conn, "SELECT r FROM q"); got != "5" {
		t.Errorf("after deleting the bad row: %q", got)
	}
}

// TestViewsSurviveRestart checks that views, materialized views and
// indexes are rebuilt from the catalog and durable inputs on start.
func TestViewsSurviveRestart(t *testing.T) {
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE s (k text, v int)")
	exec(t, conn, "INSERT INTO s VALUES ('a', 1), ('a', 2), ('b', 5)")
	exec(t, conn, "CREATE VIEW big AS SELECT k, v FROM s WHERE v > 1")
	exec(t, conn, "CREATE MATERIALIZED VIEW totals AS SELECT k, sum(v) AS total FROM big GROUP BY k")
	exec(t, conn, "CREATE INDEX totals_k ON totals (k)")
	conn.Close(context.Background())
	srv.Stop()

	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	if got, want := rows(t, conn, "SELECT k, total FROM totals ORDER BY k"), "a|2\nb|5"; got != want {
		t.Errorf("after restart:\n%s\nwant\n%s", got, want)
	}
	exec(t, conn, "INSERT INTO s VALUES ('a', 10)")
	if got, want := rows(t, conn, "SELECT total FROM totals WHERE k = 'a'"), "12"; got != want {
		t.Errorf("maintained after restart: %s, want %s", got, want)
	}
	if got := rows(t, conn, "SHOW INDEXES ON totals"); got != "totals_k|totals|{k}" {
		t.Errorf("indexes after restart: %q", got)
	}
}

// TestDropDependencies checks RESTRICT and CASCADE.
func TestDropDependencies(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE base (x int)")
	exec(t, conn, "CREATE VIEW v1 AS SELECT x FROM base")
	exec(t, conn, "CREATE MATERIALIZED VIEW m1 AS SELECT count(*) AS c FROM v1")
	for _, sql := range []string{"DROP TABLE base", "DROP VIEW v1", "DROP TABLE base RESTRICT"} {
		if _, err := conn.Exec(context.Background(), sql); sqlState(err) != "2BP01" {
			t.Errorf("%s: %v, want 2BP01", sql, err)
		}
	}
	if _, err := conn.Exec(context.Background(), "DROP VIEW base"); sqlState(err) != "42809" {
		t.Errorf("DROP VIEW of a table: %v, want 42809", err)
	}
	exec(t, conn, "DROP TABLE base CASCADE")
	if got := rows(t, conn, "SHOW OBJECTS"); got != "" {
		t.Errorf("objects left after CASCADE: %q", got)
	}
}

// TestShowMaterializedViews checks the statistics SHOW MATERIALIZED VIEWS
// reports: a view's state grows with the groups it keeps, not with the
// rows it reads; each write that reaches a view is one tick of it, a write
// to another table is none; maintenance time accumulates; WHERE filters
// on the statistics.
func TestShowMaterializedViews(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE r (k int, v int)")
	exec(t, conn, "CREATE TABLE other (x int)")
	exec(t, conn, "CREATE MATERIALIZED VIEW few AS SELECT k % 2 AS g, sum(v) FROM r GROUP BY 1")
	exec(t, conn, "CREATE MATERIALIZED VIEW many AS SELECT k, sum(v) FROM r GROUP BY k")
	exec(t, conn, "INSERT INTO r SELECT g, g FROM generate_series(1, 2000) AS g")
	exec(t, conn, "INSERT INTO r SELECT g, g FROM generate_series(2001, 4000) AS g")
	exec(t, conn, "INSERT INTO other VALUES (1)")
	stat := func(name string) (state, ticks int64, busy, last float64) {
		t.Helper()
		var hydration string
		var progress float64
		err := conn.QueryRow(context.Background(), "SHOW MATERIALIZED VIEWS WHERE name = '"+name+"'").Scan(new(string), &state, &ticks, &busy, &last, new(string), &hydration, &progress)
		if err != nil {
			t.Fatal(err)
		}
		if hydration != "ready" || progress != 1 {
			t.Errorf("%s: hydration %q, progress %v; want ready, 1", name, hydration, progress)
		}
		return
	}
	fewState, fewTicks, fewBusy, fewLast := stat("few")
	manyState, manyTicks, _, _ := stat("many")
	if fewTicks != 2 || manyTicks != 2 {
		t.Errorf("ticks: few %d, many %d, want 2 each (the write to another table is not one)", fewTicks, manyTicks)
	}
	if fewState <= 0 || manyState < 100*fewState {
		t.Errorf("state bytes: 2 groups %d, 4000 groups %d; want the second far larger", fewState, manyState)
	}
	if fewBusy <= 0 || fewLast <= 0 || fewLast > fewBusy*1000 {
		t.Errorf("maintenance %v ms in all, last tick %v µs", fewBusy, fewLast)
	}
	if got := rows(t, conn, "SHOW MATERIALIZED VIEWS WHERE state_bytes > 10000"); len(got) < 4 || got[:4] != "many" {
		t.Errorf("views with over 10 kB of state: %q", got)
	}
}

// TestQueryReadsNeededColumns checks queries whose scans decode only the
// columns they read (or none): each stored row still reaches the query as
// a row of its own (a volatile function is evaluated per row), and the
// columns read are the right ones, in joins, filters and aggregates.
func TestQueryReadsNeededColumns(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE w (a int PRIMARY KEY, b text, c int, d text)")
	exec(t, conn, "INSERT INTO w SELECT g, 'b' || g, g % 3, repeat('x', g) FROM generate_series(1, 50) AS g")
	for _, tc := range []struct{ q, want string }{
		{"SELECT count(*) FROM w", "50"},
		{"SELECT count(DISTINCT random()) FROM w", "50"},
		{"SELECT sum(c) FROM w", "51"},
		{"SELECT b FROM w WHERE c = 2 AND a < 6 ORDER BY a", "b2\nb5"},
		{"SELECT length(d) FROM w WHERE a = 7", "7"},
		{"SELECT count(*) FROM w x JOIN w y ON x.c = y.a", "34"},
		{"SELECT string_agg(y.b, ',' ORDER BY y.a) FROM w x JOIN w y ON x.a = y.c WHERE x.a = 2 AND y.a < 10", "b2,b5,b8"},
	} {
		if got := rows(t, conn, tc.q); got != tc.want {
			t.Errorf("%s = %q, want %q", tc.q, got, tc.want)
		}
	}
}

// TestViewReadsWhileTicking reads materialized views (a GROUP BY view,
// whose Output keeps its groups' words, and a view of rows) while
// transactions move amounts between rows tick after tick: every read must
// succeed and see the total unchanged. A read that finds a view's
// published snapshot revoked by a tick it raced (see
// dataflow.Output.Publish) runs again; about ten in a run do. The
// transfers also check writes: two that read the same row must not both
// commit (it found UPDATEs checked against a later snapshot than they read).
func TestViewReadsWhileTicking(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	const accounts, total = 50, 50 * 100
	exec(t, conn, "CREATE TABLE acct (id int PRIMARY KEY, grp int NOT NULL, v int NOT NULL)")
	exec(t, conn, fmt.Sprintf("INSERT INTO acct SELECT g, g %% 7, 100 FROM generate_series(1, %d) AS g", accounts))
	exec(t, conn, "CREATE MATERIALIZED VIEW by_grp AS SELECT grp, sum(v) AS s, count(*) AS n FROM acct GROUP BY grp")
	exec(t, conn, "CREATE MATERIALIZED VIEW pos AS SELECT id, v FROM acct WHERE v > -1000000")
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var wg sync.WaitGroup
	for w := range 2 {
		c := connect(t, srv.URL)
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				from, to := (i*7+w)%accounts+1, (i*13+w*3)%accounts+1
				tx, err := c.Begin(ctx)
				if err != nil {
					return
				}
				_, err1 := tx.Exec(ctx, "UPDATE acct SET v = v - 1 WHERE id = $1", from)
				_, err2 := tx.Exec(ctx, "UPDATE acct SET v = v + 1 WHERE id = $1", to)
				if err1 != nil || err2 != nil || tx.Commit(ctx) != nil {
					_ = tx.Rollback(context.Background())
				}
			}
		})
	}
	var reads atomic.Int64
	errs := make(chan error, 4)
	for range 3 {
		c := connect(t, srv.URL)
		wg.Go(func() {
			for ctx.Err() == nil {
				var s, n, p int64
				err := c.QueryRow(ctx, "SELECT sum(s)::bigint, sum(n)::bigint, (SELECT sum(v)::bigint FROM pos) FROM by_grp").Scan(&s, &n, &p)
				if ctx.Err() != nil {
					return
				}
				if err == nil && (s != total || n != accounts || p != total) {
					err = fmt.Errorf("read totals %d over %d rows and %d, want %d over %d and %d", s, n, p, total, accounts, total)
				}
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if reads.Load() < 20 {
		t.Fatalf("only %d reads completed", reads.Load())
	}
}

// TestDerivedStateSurvivesRestart restarts a server whose views keep
// state that repeats their tables (a projection, a join's arrangements, a
// self-join, an index on a table), which is rebuilt from the tables'
// rows on start rather than persisted, beside a filtered view, which
// persists its rows, and checks every view against its
// query run ad hoc after the restart and after updates and deletes that
// retract rows the rebuilt state must hold.
func TestDerivedStateSurvivesRestart(t *testing.T) {
	views := []struct{ name, query string }{
		{"proj", "SELECT k, v * 2 AS w FROM a"},
		{"filtered", "SELECT k, v FROM a WHERE v <> 3"},
		{"joined", "SELECT a.k, a.v, b.s FROM a JOIN b ON a.v = b.v"},
		{"pairs", "SELECT x.k, y.k AS k2 FROM a AS x JOIN a AS y ON x.v = y.k"},
		{"counted", "SELECT b.s, count(*) AS n FROM a JOIN b ON a.v = b.v GROUP BY b.s"},
	}
	dir := t.TempDir()
	srv := testserver.Start(t, testserver.Options{Dir: dir})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE a (k int PRIMARY KEY, v int)")
	exec(t, conn, "CREATE TABLE b (v int, s text)")
	exec(t, conn, "INSERT INTO a SELECT g, g % 7 FROM generate_series(1, 300) AS g")
	exec(t, conn, "INSERT INTO b SELECT g % 7, 's' || g FROM generate_series(1, 20) AS g")
	for _, v := range views {
		exec(t, conn, "CREATE MATERIALIZED VIEW "+v.name+" AS "+v.query)
	}
	exec(t, conn, "CREATE INDEX a_v ON a (v)")
	check := func(when string) {
		t.Helper()
		for _, v := range views {
			got := rows(t, conn, "SELECT * FROM "+v.name+" AS q ORDER BY q")
			want := rows(t, conn, "SELECT * FROM ("+v.query+") AS q ORDER BY q")
			if got != want {
				t.Errorf("%s: view %s\n%.300s\nwant\n%.300s", when, v.name, got, want)
			}
		}
		if got, want := rows(t, conn, "SELECT count(*) FROM a WHERE v = 4"), rows(t, conn, "SELECT count(*) FROM (SELECT * FROM a) AS q WHERE v = 4"); got != want {
			t.Errorf("%s: index lookup %s, want %s", when, got, want)
		}
	}
	exec(t, conn, "UPDATE a SET v = v + 1 WHERE k % 5 = 0")
	check("before the restart")
	conn.Close(context.Background())
	srv.Stop()

	srv = testserver.Start(t, testserver.Options{Dir: dir})
	conn = connect(t, srv.URL)
	check("after the restart")
	exec(t, conn, "DELETE FROM a WHERE k % 3 = 0")
	exec(t, conn, "UPDATE b SET v = v + 1 WHERE s LIKE 's1%'")
	exec(t, conn, "DELETE FROM b WHERE v = 2")
	exec(t, conn, "INSERT INTO a VALUES (1000, 4), (1001, 3)")
	check("after retractions")
}
