//go:build unix

package main

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// crashViews are the materialized views of TestKill9, over the rows its
// transactions write and the counters they update, one of each kind of
// operator state: groups with min and max under retraction, a join, a
// top-k, distinct rows and a window; and two whose state is derived from
// the tables at restore rather than persisted, a projection and a join's
// arrangements.
var crashViews = []struct{ name, query string }{
	{"wproj", "SELECT txn, part * 2 AS p FROM w"},
	{"wpairs", "SELECT w.txn, w.part, c.v FROM w JOIN counters c ON w.part = c.k"},
	{"wparts", "SELECT part, count(*) AS n, sum(txn) AS s, min(txn) AS lo, max(txn) AS hi FROM w GROUP BY part"},
	{"wjoin", "SELECT c.k, count(*) AS n, sum(c.v) AS s FROM w JOIN counters c ON w.txn % 10 = c.k GROUP BY c.k"},
	{"ctop", "SELECT k, v FROM counters ORDER BY v DESC, k LIMIT 3"},
	{"cdistinct", "SELECT DISTINCT v % 7 AS r FROM counters"},
	{"cwindow", "SELECT k, v, row_number() OVER (ORDER BY v, k) AS rn, sum(v) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s2 FROM counters"},
}

// TestKill9 runs the real binary, writes transactions from several
// clients while killing the server with SIGKILL at random moments, and
// checks after each restart that every acknowledged transaction is present
// in full and no transaction is present in part, and that every
// materialized view, restored from its persisted state while the server
// already serves, equals its query run from scratch.
func TestKill9(t *testing.T) {
	bin := binary(t) // skips with -short
	dataDir := t.TempDir()
	acked := map[int]bool{} // transaction ids whose COMMIT returned
	var mu sync.Mutex
	nextID := 0
	for round := 0; round < 4; round++ {
		srv := startBinary(t, bin, dataDir)
		url := fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", srv.addr)
		if round == 0 {
			conn := mustConnect(t, url)
			stmts := []string{
				"CREATE TABLE IF NOT EXISTS w (txn int, part int, PRIMARY KEY (txn, part))",
				"CREATE TABLE counters (k int PRIMARY KEY, v int)",
				"INSERT INTO counters SELECT g, 0 FROM generate_series(0, 9) AS g",
			}
			for _, v := range crashViews {
				stmts = append(stmts, "CREATE MATERIALIZED VIEW "+v.name+" AS "+v.query)
			}
			for _, st := range stmts {
				if _, err := conn.Exec(context.Background(), st); err != nil {
					t.Fatal(err)
				}
			}
			conn.Close(context.Background())
		}
		verify(t, url, acked)
		verifyViews(t, url)
		if round > 0 {
			checkRestored(t, srv)
		}

		// Write from three clients until the kill.
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for c := 0; c < 3; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				conn, err := pgx.Connect(ctx, url)
				if err != nil {
					return
				}
				defer conn.Close(context.Background())
				for ctx.Err() == nil {
					mu.Lock()
					nextID++
					id := nextID
					mu.Unlock()
					batch := &pgx.Batch{}
					batch.Queue("BEGIN")
					for part := 0; part < 3; part++ {
						batch.Queue("INSERT INTO w VALUES ($1, $2)", id, part)
					}
					batch.Queue("UPDATE counters SET v = v + 1 WHERE k = $1", id%10)
					batch.Queue("COMMIT")
					if err := conn.SendBatch(ctx, batch).Close(); err != nil {
						return
					}
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(200+rand.IntN(600)) * time.Millisecond)
		if err := srv.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		_ = srv.cmd.Wait()
		cancel()
		wg.Wait()
	}
	srv := startBinary(t, bin, dataDir)
	url := fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", srv.addr)
	n := verify(t, url, acked)
	verifyViews(t, url)
	checkRestored(t, srv)
	if len(acked) == 0 {
		t.Fatal("no transaction was acknowledged; the test proved nothing")
	}
	t.Logf("%d transactions acknowledged, %d present after 4 kills", len(acked), n)
	_ = srv.cmd.Process.Signal(os.Interrupt)
	_ = srv.cmd.Wait()
}

type process struct {
	cmd  *exec.Cmd
	addr string
	// log holds the server's log lines so far.
	mu  sync.Mutex
	log []string
}

// logged returns the server's log lines containing s.
func (p *process) logged(s string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, l := range p.log {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}

func startBinary(t *testing.T, bin, dataDir string) *process {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--listen", addr, "--data-dir", dataDir, "--log-level", "info")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &process{cmd: cmd, addr: addr}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log = append(p.log, sc.Text())
			p.mu.Unlock()
			if strings.Contains(sc.Text(), "level=WARN") || strings.Contains(sc.Text(), "level=ERROR") {
				t.Log("server:", sc.Text())
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			checkHugePages(t, cmd.Process.Pid)
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start on %s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mustConnect(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// verify checks that every acknowledged transaction is fully present and
// that no transaction is partly present; it returns the number present.
func verify(t *testing.T, url string, acked map[int]bool) int {
	t.Helper()
	conn := mustConnect(t, url)
	defer conn.Close(context.Background())
	rows, err := conn.Query(context.Background(), "SELECT txn, count(*) FROM w GROUP BY txn")
	if err != nil {
		t.Fatal(err)
	}
	present := map[int]int64{}
	for rows.Next() {
		var txn int
		var n int64
		if err := rows.Scan(&txn, &n); err != nil {
			t.Fatal(err)
		}
		present[txn] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for txn, n := range present {
		if n != 3 {
			t.Errorf("transaction %d is partly present: %d of 3 rows", txn, n)
		}
	}
	for txn := range acked {
		if present[txn] != 3 {
			t.Errorf("acknowledged transaction %d is missing", txn)
		}
	}
	var counted int
	if err := conn.QueryRow(context.Background(), "SELECT coalesce(sum(v), 0) FROM counters").Scan(&counted); err != nil {
		t.Fatal(err)
	}
	if counted != len(present) {
		t.Errorf("the counters count %d transactions, %d are present", counted, len(present))
	}
	return len(present)
}

// checkRestored checks that every view came back from its persisted
// state, none rebuilt from its inputs.
func checkRestored(t *testing.T, srv *process) {
	t.Helper()
	// A view is readable as it is installed, and its log line reaches
	// the test through a pipe: give the lines a moment to arrive.
	for deadline := time.Now().Add(5 * time.Second); len(srv.logged("how=restoring")) < len(crashViews) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if got := len(srv.logged("how=restoring")); got != len(crashViews) {
		t.Errorf("%d views restored from their state, want %d: %q", got, len(crashViews), srv.logged("msg=hydrated"))
	}
}

// verifyViews checks that every view of crashViews holds what its query
// computes from scratch, as multisets of rows.
func verifyViews(t *testing.T, url string) {
	t.Helper()
	conn := mustConnect(t, url)
	defer conn.Close(context.Background())
	for _, v := range crashViews {
		q := fmt.Sprintf("SELECT count(*) FROM ((SELECT * FROM %s EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL SELECT * FROM %s)) AS d", v.name, v.query, v.query, v.name)
		var n int
		if err := conn.QueryRow(context.Background(), q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if n != 0 {
			t.Errorf("view %s differs from its query by %d rows after the restart", v.name, n)
		}
	}
}

// checkHugePages checks that a server started where transparent huge pages
// are given on request runs with glibc's malloc asking for them: it
// re-executed itself with the tunable.
func checkHugePages(t *testing.T, pid int) {
	t.Helper()
	mode, err := os.ReadFile(thpEnabled)
	if err != nil || !strings.Contains(string(mode), "[madvise]") || strings.Contains(os.Getenv("GLIBC_TUNABLES"), glibcHugeTLB) {
		return
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(env), glibcHugeTLB+"=1") {
		t.Errorf("the server runs without %s=1 in GLIBC_TUNABLES", glibcHugeTLB)
	}
}
