package pgwire

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// TestShutdown ends Run's context while one session is idle and another
// runs a statement: both get FATAL 57P01, Run returns once they are
// closed, and no new connection is accepted.
func TestShutdown(t *testing.T) {
	eng := &fakeEngine{}
	srv := NewServer(Config{Listen: "127.0.0.1:0", Engine: eng})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	<-srv.Ready()
	addr := srv.Addr().String()

	idle, _ := startupFrontend(t, addr)
	busy := connectPgx(t, addr)
	busyErr := make(chan error, 1)
	go func() {
		_, err := busy.Exec(context.Background(), "SELECT pg_sleep(30)")
		busyErr <- err
	}()
	time.Sleep(200 * time.Millisecond) // let the statement start

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	want := `ErrorResponse FATAL 57P01 "terminating connection due to administrator command"|(closed)`
	if got := strings.Join(readAll(t, idle), "|"); got != want {
		t.Errorf("idle session: got %s\nwant %s", got, want)
	}
	if err := <-busyErr; pgCode(err) != "57P01" {
		t.Errorf("running statement: got %v, want 57P01", err)
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("server still accepts connections")
	}
	if n := eng.sessions.Load(); n != 0 {
		t.Errorf("%d sessions open after shutdown", n)
	}
	if n := eng.openResults.Load(); n != 0 {
		t.Errorf("%d results open after shutdown", n)
	}
}

// TestPanicClosesOneSession checks that a panic in the engine ends that
// client's connection with FATAL XX000, is logged, and leaves the server
// and the other sessions running. The fake statement panics while its
// Result is open, in both protocols.
func TestPanicClosesOneSession(t *testing.T) {
	ts := startServer(t, Config{})
	bystander := connectPgx(t, ts.addr)
	for _, send := range []pgproto3.FrontendMessage{
		&pgproto3.Query{String: "SELECT panic('kaboom')"},
		&pgproto3.Parse{Query: "SELECT panic('kaboom')"},
	} {
		conn, fe := startupFrontend(t, ts.addr)
		fe.Send(send)
		if _, ok := send.(*pgproto3.Parse); ok {
			fe.Send(&pgproto3.Bind{})
			fe.Send(&pgproto3.Execute{})
			fe.Send(&pgproto3.Sync{})
		}
		fe.Flush()
		got := readAll(t, conn)
		if len(got) < 2 || got[len(got)-2] != `ErrorResponse FATAL XX000 "internal error: kaboom"` || got[len(got)-1] != "(closed)" {
			t.Errorf("got %v", got)
		}
	}
	if logs := ts.logs.String(); !strings.Contains(logs, "panic in connection") || !strings.Contains(logs, "kaboom") {
		t.Errorf("panic not logged:\n%s", logs)
	}
	var one int32
	if err := bystander.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil {
		t.Fatalf("other session: %v", err)
	}
}

// TestAsyncNotify has the engine notify an idle session from another
// goroutine: the client receives the messages without asking.
func TestAsyncNotify(t *testing.T) {
	ts := startServer(t, Config{})
	conn, fe := startupFrontend(t, ts.addr)
	n := ts.eng.lastStartup().Notifier
	go func() {
		n.Notice(&pgerr.Error{Severity: "WARNING", Code: pgerr.Warning, Message: "disk is getting full"})
		n.ParameterStatus("TimeZone", "Europe/Paris")
	}()
	var got []string
	for len(got) < 2 {
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		msg, err := fe.Receive()
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		got = append(got, renderBackend(msg))
	}
	want := `NoticeResponse WARNING 01000 "disk is getting full"|ParameterStatus TimeZone="Europe/Paris"`
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
}

// TestErrorLogging checks the single error path: an error that is not a
// *pgerr.Error reaches the client as XX000 with its text and is logged.
func TestErrorLogging(t *testing.T) {
	ts := startServer(t, Config{})
	err := errorResponse(ts.srv.log, errTest, false)
	if err.Code != "XX000" || err.Message != "something broke" || err.Severity != "ERROR" {
		t.Errorf("got %+v", err)
	}
	if !strings.Contains(ts.logs.String(), "something broke") {
		t.Error("internal error not logged")
	}
	pe := errorResponse(ts.srv.log, pgerr.New(pgerr.UndefinedTable, `relation "t" does not exist`).WithPosition(15).WithHint("create it"), false)
	if pe.Code != "42P01" || pe.Position != 15 || pe.Hint != "create it" || pe.Severity != "ERROR" {
		t.Errorf("got %+v", pe)
	}
	if f := errorResponse(ts.srv.log, pgerr.New(pgerr.AdminShutdown, "x"), true); f.Severity != "FATAL" || f.SeverityUnlocalized != "FATAL" {
		t.Errorf("got %+v", f)
	}
}

var errTest = testError("something broke")

type testError string

func (e testError) Error() string { return string(e) }
