//go:build compat

package compat

import (
	"context"
	"net/url"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/streamdb/streamdb/internal/pgtest"
)

// The Python ecosystem's clients (clients/python), each run against
// streamdb and against a PostgreSQL 15, so that the scripts prove
// compatibility rather than agreement with themselves: asyncpg, SQLAlchemy
// over psycopg2, pgcli, the statements dbt-postgres sends, and
// LISTEN/NOTIFY across psycopg2 sessions.

// debianPython returns Debian's Python 3 if it can import every module,
// skipping the test otherwise.
func debianPython(t *testing.T, modules ...string) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		ok := true
		for _, m := range modules {
			if exec.Command(p, "-c", "import "+m).Run() != nil {
				ok = false
				break
			}
		}
		if ok {
			return p
		}
	}
	t.Skipf("Python modules %v not installed (apt-get install python3-asyncpg python3-sqlalchemy python3-psycopg2)", modules)
	return ""
}

// targets are the servers each script runs against: streamdb, and
// PostgreSQL 15 when it is installed.
func targets(t *testing.T) map[string]struct{ url, db string } {
	srv := startServer(t, false)
	out := map[string]struct{ url, db string }{"streamdb": {srv.url("sslmode=disable"), "streamdb"}}
	if pgtest.Available() {
		pg := pgtest.Start(t)
		out["postgres"] = struct{ url, db string }{pg.URL, "postgres"}
	}
	return out
}

// sqlalchemyURL turns a postgres:// URL into SQLAlchemy's psycopg2 form.
func sqlalchemyURL(raw string) string {
	u, _ := url.Parse(raw)
	u.Scheme = "postgresql+psycopg2"
	return u.String()
}

// TestAsyncpg runs clients/python/asyncpg_compat.py.
func TestAsyncpg(t *testing.T) {
	python := debianPython(t, "asyncpg")
	for name, tg := range targets(t) {
		t.Run(name, func(t *testing.T) { runClient(t, python, "clients/python/asyncpg_compat.py", tg.url) })
	}
}

// TestSQLAlchemy runs clients/python/sqlalchemy_compat.py.
func TestSQLAlchemy(t *testing.T) {
	python := debianPython(t, "sqlalchemy", "psycopg2")
	for name, tg := range targets(t) {
		t.Run(name, func(t *testing.T) { runClient(t, python, "clients/python/sqlalchemy_compat.py", sqlalchemyURL(tg.url)) })
	}
}

// TestPgcli runs clients/python/pgcli_compat.py: pgcli's completion
// queries and pgspecial's backslash commands through pgcli's PGExecute,
// which takes the connection's parts rather than a URL.
func TestPgcli(t *testing.T) {
	python := debianPython(t, "pgcli", "pgspecial")
	for name, tg := range targets(t) {
		t.Run(name, func(t *testing.T) {
			u, err := url.Parse(tg.url)
			if err != nil {
				t.Fatal(err)
			}
			password, _ := u.User.Password()
			runClient(t, python, "clients/python/pgcli_compat.py", u.Hostname(), u.Port(), u.User.Username(), password, tg.db)
		})
	}
}

// TestDBT replays dbt-postgres's statements (clients/python/dbt_replay.py).
func TestDBT(t *testing.T) {
	python := debianPython(t, "psycopg2")
	for name, tg := range targets(t) {
		t.Run(name, func(t *testing.T) { runClient(t, python, "clients/python/dbt_replay.py", tg.url, tg.db) })
	}
}

// TestListenNotify runs LISTEN/NOTIFY across two psycopg2 sessions, and
// then across two pgx connections.
func TestListenNotify(t *testing.T) {
	python := debianPython(t, "psycopg2")
	for name, tg := range targets(t) {
		t.Run(name, func(t *testing.T) {
			runClient(t, python, "clients/python/listen_psycopg2.py", tg.url)
			listenPgx(t, tg.url)
		})
	}
}

// listenPgx checks delivery with pgx: a notification committed by one
// connection reaches the other's WaitForNotification, with its PID.
func listenPgx(t *testing.T, url string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	listener, sender := connect(t, url), connect(t, url)
	mustExec(t, listener, "LISTEN pgx_channel")
	var pid uint32
	if err := sender.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	tx, err := sender.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := tx.Exec(ctx, "SELECT pg_notify('pgx_channel', $1)", "payload "+strconv.Itoa(i%2)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var got []*pgconn.Notification
	for len(got) < 2 {
		n, err := listener.WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("waiting for notifications (have %d): %v", len(got), err)
		}
		got = append(got, n)
	}
	if got[0].Payload != "payload 0" || got[1].Payload != "payload 1" || got[0].PID != pid || got[0].Channel != "pgx_channel" {
		t.Errorf("pgx notifications %+v %+v, want payload 0 then payload 1 from pid %d", got[0], got[1], pid)
	}
	wctx, wcancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer wcancel()
	if n, err := listener.WaitForNotification(wctx); err == nil {
		t.Errorf("pgx: a third notification %+v: duplicates were not folded", n)
	}
}
