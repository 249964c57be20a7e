package sql_test

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/streamdb/streamdb/internal/testserver"
)

// TestQueryStreams checks that a query's rows reach the client as they
// are produced: a query whose 300,000th row fails has sent the rows
// before it, as PostgreSQL has, and a view's rows arrive while the rest
// are still being read.
func TestQueryStreams(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	rs, err := conn.Query(context.Background(), "SELECT 1 / (g - 300000) FROM generate_series(1, 400000) g")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rs.Next() {
		n++
	}
	rs.Close()
	if sqlState(rs.Err()) != "22012" || n < 250000 || n >= 300000 {
		t.Fatalf("%d rows before %v, want the rows before the failing one, then 22012", n, rs.Err())
	}
	exec(t, conn, "CREATE TABLE t (a int, b text)")
	exec(t, conn, "INSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 200000) g")
	exec(t, conn, "CREATE MATERIALIZED VIEW v AS SELECT a, b FROM t")
	if got := rows(t, conn, "SELECT count(*), count(DISTINCT a), min(a), max(a) FROM v"); got != "200000|200000|1|200000" {
		t.Fatalf("view = %s", got)
	}
	rs, err = conn.Query(context.Background(), "SELECT a, b FROM v")
	if err != nil {
		t.Fatal(err)
	}
	n = 0
	for rs.Next() {
		n++
	}
	if rs.Close(); rs.Err() != nil || n != 200000 || rs.CommandTag().String() != "SELECT 200000" {
		t.Fatalf("%d rows, %s, %v", n, rs.CommandTag(), rs.Err())
	}
}

// TestQueryStreamCancel cancels a cross join of ten billion matches and a
// query over a billion generated rows: each fails with 57014 at once, and
// the server answers on.
func TestQueryStreamCancel(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	for _, q := range []string{
		"SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b",
		"SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b, generate_series(1, 100000) c WHERE a.a = b.b",
		"SELECT g FROM generate_series(1, 1000000000) g ORDER BY g DESC LIMIT 3",
	} {
		start := time.Now()
		timer := time.AfterFunc(300*time.Millisecond, func() {
			if err := conn.PgConn().CancelRequest(context.Background()); err != nil {
				t.Error(err)
			}
		})
		_, err := conn.Exec(context.Background(), q)
		timer.Stop()
		if sqlState(err) != "57014" {
			t.Errorf("%s: %v, want 57014", q, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: canceled after %v", q, d)
		}
		if got := rows(t, conn, "SELECT 1"); got != "1" {
			t.Fatalf("after the cancel: %s", got)
		}
	}
	exec(t, conn, "SET statement_timeout = '200ms'")
	_, err := conn.Exec(context.Background(), "SELECT count(*) FROM generate_series(1, 100000) a, generate_series(1, 100000) b")
	if sqlState(err) != "57014" || !strings.Contains(err.Error(), "statement timeout") {
		t.Errorf("statement_timeout: %v", err)
	}
}

// TestQueryStreamPortal reads a portal a few rows at a time across Syncs
// in a transaction that writes to the table between the reads, as JDBC's
// fetch size does: the portal returns the rows of its start, all of them,
// once.
func TestQueryStreamPortal(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE t (a int)")
	exec(t, conn, "INSERT INTO t SELECT g FROM generate_series(1, 10000) g")

	nc, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	fe := pgproto3.NewFrontend(nc, nc)
	fe.Send(&pgproto3.StartupMessage{ProtocolVersion: pgproto3.ProtocolVersionNumber, Parameters: map[string]string{"user": "streamdb", "database": "streamdb"}})
	readUntilReady := func() (rows int, tags []string, suspended bool) {
		t.Helper()
		if err := fe.Flush(); err != nil {
			t.Fatal(err)
		}
		for {
			msg, err := fe.Receive()
			if err != nil {
				t.Fatal(err)
			}
			switch m := msg.(type) {
			case *pgproto3.DataRow:
				rows++
			case *pgproto3.CommandComplete:
				tags = append(tags, string(m.CommandTag))
			case *pgproto3.PortalSuspended:
				suspended = true
			case *pgproto3.ErrorResponse:
				t.Fatalf("error: %s %s", m.Code, m.Message)
			case *pgproto3.ReadyForQuery:
				return rows, tags, suspended
			}
		}
	}
	readUntilReady()
	fe.Send(&pgproto3.Query{String: "BEGIN"})
	readUntilReady()
	fe.Send(&pgproto3.Parse{Query: "SELECT a FROM t"})
	fe.Send(&pgproto3.Bind{DestinationPortal: "p"})
	fe.Send(&pgproto3.Execute{Portal: "p", MaxRows: 3})
	fe.Send(&pgproto3.Sync{})
	if n, _, suspended := readUntilReady(); n != 3 || !suspended {
		t.Fatalf("first fetch: %d rows, suspended %v", n, suspended)
	}
	total := 3
	for i := range 5 {
		fe.Send(&pgproto3.Query{String: fmt.Sprintf("INSERT INTO t VALUES (%d)", 20000+i)})
		readUntilReady()
		fe.Send(&pgproto3.Execute{Portal: "p", MaxRows: 1000})
		fe.Send(&pgproto3.Sync{})
		n, _, _ := readUntilReady()
		total += n
	}
	fe.Send(&pgproto3.Execute{Portal: "p"})
	fe.Send(&pgproto3.Sync{})
	n, tags, _ := readUntilReady()
	total += n
	if total != 10000 || len(tags) != 1 || tags[0] != fmt.Sprintf("SELECT %d", n) {
		t.Fatalf("portal: %d rows in all, last fetch %d with %v", total, n, tags)
	}
	fe.Send(&pgproto3.Query{String: "SELECT count(*) FROM t"})
	if n, tags, _ := readUntilReady(); n != 1 || tags[0] != "SELECT 1" {
		t.Fatalf("count: %d %v", n, tags)
	}
	fe.Send(&pgproto3.Query{String: "COMMIT"})
	readUntilReady()
	if got := rows(t, conn, "SELECT count(*) FROM t"); got != "10005" {
		t.Fatalf("after commit: %s", got)
	}
}
