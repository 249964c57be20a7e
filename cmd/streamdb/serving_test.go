//go:build unix

package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestServesWhileOpening kills the real binary after it has written a
// store whose opening takes a measurable time (hundreds of views to plan
// and build, and a log of unflushed writes to replay), restarts it and
// connects at once: the connection is accepted and SELECT 1 answered
// before the opening ends (the server's own rehydrate_ms), and the first
// read of a view waits for it and is right.
func TestServesWhileOpening(t *testing.T) {
	bin := binary(t) // skips with -short
	dir := t.TempDir()
	srv := startBinary(t, bin, dir)
	url := fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", srv.addr)
	conn := mustConnect(t, url)
	stmts := []string{
		"CREATE TABLE small (k int PRIMARY KEY, v int)",
		"INSERT INTO small SELECT g, g % 3 FROM generate_series(1, 10) AS g",
		"CREATE TABLE t (k int PRIMARY KEY, v int, pad text)",
		"CREATE MATERIALIZED VIEW per_v AS SELECT v, count(*) AS n, sum(k) AS s FROM t GROUP BY v",
	}
	for i := range 800 {
		stmts = append(stmts, fmt.Sprintf("CREATE MATERIALIZED VIEW mv%d AS SELECT v, count(*) AS n, sum(k + %d) AS s FROM small WHERE k <> %d GROUP BY v", i, i, i))
	}
	stmts = append(stmts, "INSERT INTO t SELECT g, g % 100, repeat('x', 100) FROM generate_series(1, 300000) AS g")
	for _, s := range stmts {
		if _, err := conn.Exec(context.Background(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	const read = "SELECT count(*), sum(n), sum(s) FROM per_v"
	var want string
	if err := conn.QueryRow(context.Background(), "SELECT count(DISTINCT v)::text || ' ' || count(*) || ' ' || sum(k) FROM t").Scan(&want); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = srv.cmd.Wait()

	start := time.Now()
	srv = startBinary(t, bin, dir)
	conn = mustConnect(t, fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", srv.addr))
	defer conn.Close(context.Background())
	var one int
	if err := conn.QueryRow(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("SELECT 1: %d, %v", one, err)
	}
	answered := time.Since(start)
	var n, sumN, sumS int64
	if err := conn.QueryRow(context.Background(), read).Scan(&n, &sumN, &sumS); err != nil {
		t.Fatal(err)
	}
	viewRead := time.Since(start)
	if got := fmt.Sprintf("%d %d %d", n, sumN, sumS); got != want {
		t.Errorf("first read of the view after the restart: %s, want %s", got, want)
	}
	opened := rehydrated(t, srv)
	t.Logf("after the restart: SELECT 1 answered at %v, the store opened at %v (rehydrate_ms), the view read at %v",
		answered.Round(time.Millisecond), opened, viewRead.Round(time.Millisecond))
	// answered counts from before the process started, rehydrate_ms from
	// after it parsed its flags: answered < opened proves the order.
	if answered >= opened {
		t.Errorf("SELECT 1 answered at %v, not before the store opened at %v", answered, opened)
	}
}

var rehydrateMS = regexp.MustCompile(`msg="streamdb started".* rehydrate_ms=(\d+)`)

// rehydrated waits for the server's "streamdb started" line and returns
// its rehydrate_ms.
func rehydrated(t *testing.T, srv *process) time.Duration {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		for _, l := range srv.logged("streamdb started") {
			if m := rehydrateMS.FindStringSubmatch(l); m != nil {
				ms, _ := strconv.Atoi(m[1])
				return time.Duration(ms) * time.Millisecond
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("no \"streamdb started\" line with rehydrate_ms in the server's log")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
