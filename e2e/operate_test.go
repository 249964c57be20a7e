package e2e

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// TestServerOperations runs the binary as an operator would: --version,
// the startup log, a second server on the same data directory.
func TestServerOperations(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	out, err := exec.Command(binary(t, "streamdb"), "--version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "streamdb ") {
		t.Fatalf("--version: %v: %q", err, out)
	}

	dir := t.TempDir()
	first, addr := startStreamdb(t, dir)
	c := connect(t, pgURL(addr))
	c.exec("CREATE TABLE t (a int)")
	c.exec("CREATE MATERIALIZED VIEW v AS SELECT count(*) FROM t")
	first.kill()

	first, _ = startStreamdb(t, dir)
	waitLog(t, first, "streamdb started")
	started := logLine(first, "streamdb started")
	for _, want := range []string{"version=", "data_dir=" + dir, "listen=", "tls=false", "auth=local-trust", "objects=2", "rehydrate_ms=", "open_files=", "max_connections="} {
		if !strings.Contains(started, want) {
			t.Errorf("startup log lacks %q:\n%s", want, started)
		}
	}

	second := exec.Command(binary(t, "streamdb"), "--listen", fmt.Sprintf("127.0.0.1:%d", freePort(t)), "--data-dir", dir)
	out, err = second.CombinedOutput()
	want := fmt.Sprintf("data directory %s is in use by another streamdb (pid %d)", dir, first.cmd.Process.Pid)
	if err == nil || !strings.Contains(string(out), want) {
		t.Fatalf("second server on the same directory: %v\n%s\nwant %q", err, out, want)
	}
}

// TestFileLimit runs streamdb under a small open-file limit: the clients
// beyond what the limit leaves are refused with 53300 rather than hanging,
// the server still answers, and the log stays short.
func TestFileLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	p := startProcess(t, "/bin/sh", "-c", fmt.Sprintf("ulimit -n 160 && exec %s --listen %s --data-dir %s", binary(t, "streamdb"), addr, t.TempDir()))
	p.waitListening(t, addr)
	waitLog(t, p, "streamdb started")
	if !strings.Contains(p.log.String(), "open_files=160") || !strings.Contains(p.log.String(), "max_connections=48") {
		t.Fatalf("the file limit was not applied:\n%s", p.log.String())
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var conns []*pgx.Conn
	defer func() {
		for _, c := range conns {
			c.Close(context.Background())
		}
	}()
	var refused *pgconn.PgError
	for range 200 {
		c, err := pgx.Connect(ctx, pgURL(addr))
		if err != nil {
			if !errors.As(err, &refused) || refused.Code != "53300" {
				t.Fatalf("after %d clients: %v, want 53300", len(conns), err)
			}
			break
		}
		conns = append(conns, c)
	}
	if refused == nil || len(conns) != 48 {
		t.Fatalf("%d clients admitted, refused: %v; want 48 then 53300", len(conns), refused)
	}
	if _, err := conns[0].Exec(ctx, "CREATE TABLE t AS SELECT generate_series(1, 1000) AS a"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := conns[len(conns)-1].QueryRow(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1000 {
		t.Fatalf("count: %d, %v", n, err)
	}
	conns[0].Close(ctx)
	conns = conns[1:]
	// The server frees the slot when it sees the client go.
	for {
		c, err := pgx.Connect(ctx, pgURL(addr))
		if err == nil {
			conns = append(conns, c)
			break
		}
		if !errors.As(err, &refused) || refused.Code != "53300" || ctx.Err() != nil {
			t.Fatalf("a client after one left: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if lines := strings.Count(p.log.String(), "\n"); lines > 50 {
		t.Errorf("%d log lines:\n%s", lines, p.log.String())
	}
}

// waitLog waits until p has logged a line containing msg.
func waitLog(t *testing.T, p *process, msg string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(p.log.String(), msg) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", msg, p.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// logLine is the first line of p's log containing msg.
func logLine(p *process, msg string) string {
	for _, l := range strings.Split(p.log.String(), "\n") {
		if strings.Contains(l, msg) {
			return l
		}
	}
	return ""
}
