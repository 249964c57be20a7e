package sql_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/testserver"
)

// heldOpen starts a server on dir whose store does not open until
// release is called; open is what the opening then returns.
func heldOpen(t *testing.T, dir string, open error) (srv *testserver.Server, release func()) {
	t.Helper()
	ch := make(chan struct{})
	knobs := &engine.TestingKnobs{BeforeOpen: func() error {
		<-ch
		return open
	}}
	srv, err := testserver.Run(testserver.Options{Dir: dir, Testing: knobs, Starting: true}, nil)
	if err != nil {
		close(ch)
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			close(ch)
		}
	}
	t.Cleanup(func() {
		release()
		srv.Stop()
	})
	return srv, release
}

// TestServeWhileOpening restarts a server whose store is held closed:
// clients connect at once, statements that need no engine (SELECT 1,
// SET and SHOW of a setting) answer, and one that reads a table or a
// view waits, within statement_timeout or until canceled. Released,
// the waiting read returns the view's contents and the settings made
// meanwhile hold; a role that does not exist is refused then.
func TestServeWhileOpening(t *testing.T) {
	dir := t.TempDir()
	srv, err := testserver.Run(testserver.Options{Dir: dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (k int PRIMARY KEY, v int)")
	exec(t, conn, "INSERT INTO t SELECT g, g % 5 FROM generate_series(1, 500) AS g")
	exec(t, conn, "CREATE MATERIALIZED VIEW per_v AS SELECT v, count(*) AS n FROM t GROUP BY v")
	want := rows(t, conn, "SELECT * FROM per_v ORDER BY v")
	conn.Close(context.Background())
	srv.Stop()

	srv, release := heldOpen(t, dir, nil)
	conn = connect(t, srv.URL)
	if got := rows(t, conn, "SELECT 1, 2 + 3 AS five"); got != "1|5" {
		t.Errorf("SELECT 1, 2 + 3 while the store opens: %s", got)
	}
	exec(t, conn, "SET application_name = 'early'")
	if got := rows(t, conn, "SHOW application_name"); got != "early" {
		t.Errorf("SHOW application_name while the store opens: %s", got)
	}
	exec(t, conn, "SET statement_timeout = '200ms'")
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM t").Scan(new(int64)); sqlState(err) != "57014" || !strings.Contains(err.Error(), "statement timeout") {
		t.Errorf("read of a table under statement_timeout while the store opens: %v", err)
	}
	exec(t, conn, "SET statement_timeout = 0")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	err = conn.QueryRow(ctx, "SELECT count(*) FROM t").Scan(new(int64))
	cancel()
	if sqlState(err) != "57014" && !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("canceled read while the store opens: %v", err)
	}
	// pgx closes a connection whose query it gave up on: take another.
	conn = connect(t, srv.URL)
	nobody := connect(t, strings.Replace(srv.URL, "streamdb@", "nobody@", 1))
	if got := rows(t, nobody, "SELECT 1"); got != "1" {
		t.Errorf("SELECT 1 of an unknown role while the store opens: %s", got)
	}

	done := make(chan string, 1)
	go func() {
		rs, err := conn.Query(context.Background(), "SELECT * FROM per_v ORDER BY v")
		if err != nil {
			done <- err.Error()
			return
		}
		got, err := renderRows(rs)
		if err != nil {
			got = err.Error()
		}
		done <- got
	}()
	select {
	case got := <-done:
		t.Fatalf("read of a view returned before the store opened: %s", got)
	case <-time.After(100 * time.Millisecond):
	}
	release()
	if got := <-done; got != want {
		t.Errorf("view read once the store opened: %s, want %s", got, want)
	}
	if got := rows(t, conn, "SHOW is_superuser"); got != "on" {
		t.Errorf("is_superuser once admitted: %s", got)
	}
	if got := hydrations(t, conn); got != "per_v|ready|1" {
		t.Errorf("SHOW MATERIALIZED VIEWS once open:\n%s", got)
	}
	var pe *pgconn.PgError
	if _, err := nobody.Exec(context.Background(), "SELECT count(*) FROM t"); !errors.As(err, &pe) || pe.Code != "28000" || pe.Severity != "FATAL" {
		t.Errorf("unknown role once the store opened: %v", err)
	}
}

// TestStartFails holds the opening and then fails it: a statement
// waiting for the engine fails with 57P03 and the reason.
func TestStartFails(t *testing.T) {
	srv, release := heldOpen(t, t.TempDir(), errors.New("disk on fire"))
	conn := connect(t, srv.URL)
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Exec(context.Background(), "CREATE TABLE t (k int)")
		errc <- err
	}()
	release()
	if err := <-errc; sqlState(err) != "57P03" || !strings.Contains(err.Error(), "disk on fire") {
		t.Errorf("statement waiting for an engine that failed to open: %v", err)
	}
}

// renderRows renders rows as rows does.
func renderRows(rs pgx.Rows) (string, error) {
	defer rs.Close()
	var lines []string
	for rs.Next() {
		vals, err := rs.Values()
		if err != nil {
			return "", err
		}
		f := make([]string, len(vals))
		for i, v := range vals {
			f[i] = "NULL"
			if v != nil {
				f[i] = fmt.Sprint(v)
			}
		}
		lines = append(lines, strings.Join(f, "|"))
	}
	return strings.Join(lines, "\n"), rs.Err()
}
