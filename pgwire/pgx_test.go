package pgwire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"
)

// pgxConfig returns a pgx configuration for the test server; opts are
// keyword=value settings that override the defaults. Cancelling a query's
// context sends a CancelRequest, as libpq-based clients do.
func pgxConfig(t testing.TB, addr string, opts ...string) *pgx.ConnConfig {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr)
	dsn := "host=" + host + " port=" + port + " user=postgres dbname=postgres sslmode=disable application_name=pgwire_test"
	for _, o := range opts {
		dsn += " " + o
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	return cfg
}

// connectPgx opens a pgx connection to the test server, closed when the
// test ends.
func connectPgx(t testing.TB, addr string, opts ...string) *pgx.Conn {
	t.Helper()
	conn, err := connectPgxErr(t, addr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

func connectPgxErr(t testing.TB, addr string, opts ...string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return pgx.ConnectConfig(ctx, pgxConfig(t, addr, opts...))
}

func pgCode(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code
	}
	return ""
}

func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return ""
}

var execModes = []pgx.QueryExecMode{
	pgx.QueryExecModeCacheStatement,
	pgx.QueryExecModeCacheDescribe,
	pgx.QueryExecModeDescribeExec,
	pgx.QueryExecModeExec,
	pgx.QueryExecModeSimpleProtocol,
}

// TestPgxQueryModes runs the same queries through every pgx execution
// mode: extended protocol with binary results and parameters, text
// parameters without a describe, and the simple protocol.
func TestPgxQueryModes(t *testing.T) {
	ts := startServer(t, Config{})
	conn := connectPgx(t, ts.addr)
	ctx := context.Background()
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			rows, err := conn.Query(ctx, "SELECT generate_series(1, 5)", mode)
			if err != nil {
				t.Fatal(err)
			}
			nums, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(nums) != "[1 2 3 4 5]" {
				t.Errorf("got %v", nums)
			}

			var i int32
			var s *string
			var i8 int64
			if err := conn.QueryRow(ctx, "SELECT $1::int4, $2::text, $3::int8", mode, 42, nil, int64(1)<<40).Scan(&i, &s, &i8); err != nil {
				t.Fatal(err)
			}
			if i != 42 || s != nil || i8 != 1<<40 {
				t.Errorf("got %d %v %d", i, s, i8)
			}

			var b bool
			var txt string
			if err := conn.QueryRow(ctx, "SELECT true, 'it''s, quoted'", mode).Scan(&b, &txt); err != nil {
				t.Fatal(err)
			}
			if !b || txt != "it's, quoted" {
				t.Errorf("got %v %q", b, txt)
			}

			_, err = conn.Exec(ctx, "SELECT 1/0", mode)
			if pgCode(err) != "22012" {
				t.Errorf("1/0: got %v, want 22012", err)
			}
			var one int32
			if err := conn.QueryRow(ctx, "SELECT 1", mode).Scan(&one); err != nil || one != 1 {
				t.Errorf("after error: %v %d", err, one)
			}
		})
	}
}

func TestPgxErrors(t *testing.T) {
	ts := startServer(t, Config{})
	conn := connectPgx(t, ts.addr)
	ctx := context.Background()
	_, err := conn.Exec(ctx, "SELEC 1")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "42601" || pe.Position != 1 || pe.Message != `syntax error at or near "SELEC"` || pe.Severity != "ERROR" {
		t.Fatalf("got %#v", err)
	}
	_, err = conn.PgConn().Prepare(ctx, "", "SELECT 1; SELECT 2", nil)
	if pgCode(err) != "42601" || !strings.Contains(err.Error(), "cannot insert multiple commands") {
		t.Errorf("multiple commands: %v", err)
	}
	_, err = conn.Exec(ctx, "SELECT $1::int4", "abc")
	if pgCode(err) != "22P02" {
		t.Errorf("bad parameter: %v", err)
	}
	if ts.eng.aborts.Load() == 0 {
		t.Error("parameter error not reported through Session.Abort")
	}
}

// TestPgxTransaction checks the transaction status pgx sees after each
// statement, and that a pgwire error fails the block.
func TestPgxTransaction(t *testing.T) {
	ts := startServer(t, Config{})
	conn := connectPgx(t, ts.addr)
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := conn.PgConn().TxStatus(); s != 'T' {
		t.Errorf("after BEGIN: %c", s)
	}
	if _, err := tx.Exec(ctx, "SELECT $1::int4", "not a number"); pgCode(err) != "22P02" {
		t.Fatalf("got %v", err)
	}
	if s := conn.PgConn().TxStatus(); s != 'E' {
		t.Errorf("after a Bind error in a block: %c, want E", s)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if s := conn.PgConn().TxStatus(); s != 'I' {
		t.Errorf("after ROLLBACK: %c", s)
	}
}

func TestPgxBatch(t *testing.T) {
	ts := startServer(t, Config{})
	ctx := context.Background()
	for _, mode := range execModes {
		t.Run(mode.String(), func(t *testing.T) {
			conn := connectPgx(t, ts.addr, "default_query_exec_mode="+strings.ReplaceAll(mode.String(), " ", "_"))
			b := &pgx.Batch{}
			b.Queue("SELECT generate_series(1, 3)")
			b.Queue("SELECT $1::int8", int64(7))
			b.Queue("SET application_name = 'batch'")
			br := conn.SendBatch(ctx, b)
			rows, err := br.Query()
			if err != nil {
				t.Fatal(err)
			}
			nums, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil || len(nums) != 3 {
				t.Fatalf("first: %v %v", nums, err)
			}
			var v int64
			if err := br.QueryRow().Scan(&v); err != nil || v != 7 {
				t.Fatalf("second: %v %v", v, err)
			}
			tag, err := br.Exec()
			if err != nil || tag.String() != "SET" {
				t.Fatalf("third: %v %v", tag, err)
			}
			if err := br.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}

	// An error stops the batch: the statements after it are skipped.
	conn := connectPgx(t, ts.addr)
	b := &pgx.Batch{}
	b.Queue("SELECT 1")
	b.Queue("SELECT 1/0")
	b.Queue("SELECT 2")
	br := conn.SendBatch(ctx, b)
	if _, err := br.Exec(); err != nil {
		t.Fatal(err)
	}
	if _, err := br.Exec(); pgCode(err) != "22012" {
		t.Fatalf("got %v", err)
	}
	if _, err := br.Exec(); err == nil {
		t.Fatal("statement after the error ran")
	}
	br.Close()
	var one int32
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatal(err)
	}
}

func TestPgxPrepared(t *testing.T) {
	ts := startServer(t, Config{})
	conn := connectPgx(t, ts.addr)
	ctx := context.Background()
	sd, err := conn.Prepare(ctx, "pair", "SELECT $1::int8, $2::text")
	if err != nil {
		t.Fatal(err)
	}
	if len(sd.ParamOIDs) != 2 || sd.ParamOIDs[0] != 20 || sd.ParamOIDs[1] != 25 || len(sd.Fields) != 2 {
		t.Fatalf("description: %+v", sd)
	}
	for i := range 3 {
		var n int64
		var s string
		if err := conn.QueryRow(ctx, "pair", int64(i), fmt.Sprint("v", i)).Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		if n != int64(i) || s != fmt.Sprint("v", i) {
			t.Errorf("got %d %q", n, s)
		}
	}
	if _, err := conn.Prepare(ctx, "pair", "SELECT 2"); err == nil {
		// pgx deduplicates identical names; a different query under the same
		// name must reach the server and fail.
		t.Log("pgx replaced the statement")
	}
	if err := conn.Deallocate(ctx, "pair"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.PgConn().Prepare(ctx, "pair", "SELECT 1", nil); err != nil {
		t.Fatalf("name not free after Deallocate: %v", err)
	}
}

// TestPgxCancel cancels a running statement through the context: pgx sends
// a CancelRequest on a new connection, the statement fails with 57014 and
// the connection stays usable.
func TestPgxCancel(t *testing.T) {
	ts := startServer(t, Config{})
	conn := connectPgx(t, ts.addr)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		_, err := conn.Exec(ctx, "SELECT pg_sleep(30)", mode)
		cancel()
		if pgCode(err) != "57014" {
			t.Fatalf("%v: got %v, want 57014", mode, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("cancel took %v", d)
		}
		var one int32
		if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
			t.Fatalf("after cancel: %v", err)
		}
	}
}

// TestCancelIdle checks that a cancel request for an idle session, or with
// a wrong key, changes nothing.
func TestCancelIdle(t *testing.T) {
	t.Run("between messages", func(t *testing.T) {
		ts := startServer(t, Config{})
		conn, fe, key := startupFrontendKey(t, ts.addr)
		fe.Send(&pgproto3.Parse{Query: "SELECT pg_sleep(0.01)"})
		fe.Send(&pgproto3.Bind{})
		fe.Send(&pgproto3.Flush{})
		fe.Flush()
		if got := strings.Join(readN(t, conn, fe, 2), "|"); got != "ParseComplete|BindComplete" {
			t.Fatalf("got %s", got)
		}
		// The session now waits for the rest of its batch; a cancel must
		// not reach the Execute that follows.
		sendCancel(t, ts.addr, key.ProcessID, key.SecretKey)
		fe.Send(&pgproto3.Execute{})
		fe.Send(&pgproto3.Sync{})
		fe.Flush()
		if got := strings.Join(readN(t, conn, fe, 3), "|"); got != `DataRow ""|CommandComplete "SELECT 1"|ReadyForQuery I` {
			t.Fatalf("got %s", got)
		}
	})

	ts := startServer(t, Config{})
	conn := connectPgx(t, ts.addr)
	ctx := context.Background()
	if err := conn.PgConn().CancelRequest(ctx); err != nil {
		t.Fatal(err)
	}
	var one int32
	if err := conn.QueryRow(ctx, "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("after idle cancel: %v", err)
	}
	// A wrong secret key: the server must ignore it.
	pid := conn.PgConn().PID()
	c2 := connectPgx(t, ts.addr)
	go func() {
		time.Sleep(100 * time.Millisecond)
		sendCancel(t, ts.addr, pid, []byte{1, 2, 3, 4})
	}()
	if _, err := conn.Exec(ctx, "SELECT pg_sleep(0.5)"); err != nil {
		t.Fatalf("cancelled with a wrong key: %v", err)
	}
	_ = c2
}

func TestPgxNoticesAndParameterStatus(t *testing.T) {
	ts := startServer(t, Config{})
	cfg := pgxConfig(t, ts.addr, "application_name=first")
	notices := make(chan string, 10)
	cfg.OnNotice = func(_ *pgconn.PgConn, n *pgconn.Notice) { notices <- n.Severity + " " + n.Code + " " + n.Message }
	ctx := context.Background()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if got := ts.eng.lastStartup().Params["application_name"]; got != "first" {
		t.Errorf("startup application_name = %q", got)
	}
	if got := conn.PgConn().ParameterStatus("application_name"); got != "first" {
		t.Errorf("reported application_name = %q", got)
	}
	if _, err := conn.Exec(ctx, "DO $$BEGIN RAISE NOTICE 'hi there'; END$$"); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-notices:
		if n != "NOTICE 00000 hi there" {
			t.Errorf("notice %q", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notice")
	}
	if _, err := conn.Exec(ctx, "SET application_name = 'second'"); err != nil {
		t.Fatal(err)
	}
	if got := conn.PgConn().ParameterStatus("application_name"); got != "second" {
		t.Errorf("after SET application_name = %q", got)
	}
}

// TestPgxLargeResult streams a result far larger than the write buffer.
func TestPgxLargeResult(t *testing.T) {
	ts := startServer(t, Config{})
	conn := connectPgx(t, ts.addr)
	for _, mode := range []pgx.QueryExecMode{pgx.QueryExecModeCacheStatement, pgx.QueryExecModeSimpleProtocol} {
		rows, err := conn.Query(context.Background(), "SELECT many(100000, 4)", mode)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var a, b, c, d int64
			if err := rows.Scan(&a, &b, &c, &d); err != nil {
				t.Fatal(err)
			}
			if a != int64(n*1000) || d != a+3 {
				t.Fatalf("row %d: %d %d", n, a, d)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if n != 100000 || rows.CommandTag().String() != "SELECT 100000" {
			t.Errorf("%d rows, tag %q", n, rows.CommandTag())
		}
	}
}

// sendCancel sends a CancelRequest and waits until the server has handled
// it, which it shows by closing the connection.
func sendCancel(t testing.TB, addr string, pid uint32, secret []byte) {
	raw, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Error(err)
		return
	}
	defer raw.Close()
	raw.Write(cancelPacket(pid, secret))
	raw.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := raw.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("cancel connection: %v, want EOF", err)
	}
}

// readN renders the next n backend messages.
func readN(t testing.TB, conn net.Conn, fe *pgproto3.Frontend, n int) []string {
	t.Helper()
	var out []string
	for len(out) < n {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("after %v: %v", out, err)
		}
		out = append(out, renderBackend(msg))
	}
	return out
}
