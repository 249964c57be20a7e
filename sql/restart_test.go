package sql_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/testserver"
)

// TestServeWhileHydrating restarts a server whose view is held before
// it hydrates: the server answers at once, tables and other views read,
// a read of the held view waits for it, within statement_timeout or
// until canceled, SHOW MATERIALIZED VIEWS shows it restoring, and a
// write that would change it waits too, while writes elsewhere commit.
// Released, the view reads its restored contents and the waiting write.
func TestServeWhileHydrating(t *testing.T) {
	dir := t.TempDir()
	srv, err := testserver.Run(testserver.Options{Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, srv.URL)
	for _, s := range []string{
		"CREATE TABLE t (k int PRIMARY KEY, v int)",
		"CREATE TABLE u (x int)",
		"INSERT INTO t SELECT g, g % 7 FROM generate_series(1, 1000) AS g",
		"CREATE MATERIALIZED VIEW held AS SELECT v, count(*) AS n, max(k) AS hi FROM t GROUP BY v",
		"CREATE MATERIALIZED VIEW free AS SELECT count(*) AS n FROM u",
		"UPDATE t SET v = v + 1 WHERE k <= 300",
	} {
		exec(t, conn, s)
	}
	want := rows(t, conn, "SELECT * FROM held ORDER BY v")
	tableWant := rows(t, conn, "SELECT count(*), sum(v) FROM t")
	var zeros int64
	if err := conn.QueryRow(context.Background(), "SELECT n FROM held WHERE v = 0").Scan(&zeros); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	srv.Stop()

	release := make(chan struct{})
	hydrating := make(chan struct{}, 1)
	knobs := &engine.TestingKnobs{BeforeHydrate: func(object string) {
		if object == "held" {
			hydrating <- struct{}{}
			<-release
		}
	}}
	srv, err = testserver.Run(testserver.Options{Dir: dir, Testing: knobs}, nil)
	if err != nil {
		close(release)
		t.Fatal(err)
	}
	defer srv.Stop()
	released := false
	defer func() {
		if !released {
			close(release)
		}
	}()
	<-hydrating
	conn = connect(t, srv.URL)
	if got := rows(t, conn, "SELECT count(*), sum(v) FROM t"); got != tableWant {
		t.Errorf("table read while a view hydrates: %s, want %s", got, tableWant)
	}
	if got := hydrations(t, conn); got != "free|ready|1\nheld|restoring|<1" {
		t.Errorf("SHOW MATERIALIZED VIEWS while held hydrates:\n%s", got)
	}
	exec(t, conn, "SET statement_timeout = '200ms'")
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM held").Scan(new(int64)); sqlState(err) != "57014" || !strings.Contains(err.Error(), "statement timeout") {
		t.Errorf("read of a hydrating view under statement_timeout: %v", err)
	}
	exec(t, conn, "SET statement_timeout = 0")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err = conn.QueryRow(ctx, "SELECT count(*) FROM held").Scan(new(int64))
	cancel()
	if sqlState(err) != "57014" && ctx.Err() == nil {
		t.Errorf("canceled read of a hydrating view: %v", err)
	}
	conn.Close(context.Background())

	conn = connect(t, srv.URL)
	exec(t, conn, "INSERT INTO u VALUES (1)")
	if got := rows(t, conn, "SELECT n FROM free"); got != "1" {
		t.Errorf("the ready view after a write: %s", got)
	}
	wrote := make(chan error, 1)
	go func() {
		c, err := pgx.Connect(context.Background(), srv.URL)
		if err != nil {
			wrote <- err
			return
		}
		defer c.Close(context.Background())
		_, err = c.Exec(context.Background(), "INSERT INTO t VALUES (1001, 0)")
		wrote <- err
	}()
	read := make(chan string, 1)
	go func() {
		c, err := pgx.Connect(context.Background(), srv.URL)
		if err != nil {
			read <- err.Error()
			return
		}
		defer c.Close(context.Background())
		var out []string
		rs, err := c.Query(context.Background(), "SELECT v, n, hi FROM held ORDER BY v")
		if err != nil {
			read <- err.Error()
			return
		}
		for rs.Next() {
			var v, n, hi int64
			if err := rs.Scan(&v, &n, &hi); err != nil {
				read <- err.Error()
				return
			}
			out = append(out, fmt.Sprintf("%d|%d|%d", v, n, hi))
		}
		read <- strings.Join(out, "\n")
	}()
	select {
	case err := <-wrote:
		t.Fatalf("a write to the held view's table committed while it hydrates: %v", err)
	case got := <-read:
		t.Fatalf("a read of the held view returned while it hydrates: %s", got)
	case <-time.After(300 * time.Millisecond):
	}
	released = true
	close(release)
	if got := <-read; got != want && !strings.Contains(got, "1001") {
		t.Errorf("held view once restored:\n%s\nwant\n%s", got, want)
	}
	if err := <-wrote; err != nil {
		t.Fatalf("the write that waited: %v", err)
	}
	if got, want := rows(t, conn, "SELECT n, hi FROM held WHERE v = 0"), fmt.Sprintf("%d|1001", zeros+1); got != want {
		t.Errorf("the write that waited reached the view as %s, want %s", got, want)
	}
	if got := hydrations(t, conn); got != "free|ready|1\nheld|ready|1" {
		t.Errorf("SHOW MATERIALIZED VIEWS once hydrated:\n%s", got)
	}
}

// hydrations returns each view's name, hydration and progress from SHOW
// MATERIALIZED VIEWS, as "name|hydration|progress" lines, progress < 1
// shown as "<1".
func hydrations(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	var lines []string
	for _, l := range strings.Split(rows(t, conn, "SHOW MATERIALIZED VIEWS"), "\n") {
		f := strings.Split(l, "|")
		p := f[len(f)-1]
		if p != "1" {
			p = "<1"
		}
		lines = append(lines, f[0]+"|"+f[len(f)-2]+"|"+p)
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}
