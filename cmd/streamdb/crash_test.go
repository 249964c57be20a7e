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

// TestKill9 runs the real binary, writes transactions from several
// clients while killing the server with SIGKILL at random moments, and
// checks after each restart that every acknowledged transaction is present
// in full and no transaction is present in part.
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
			if _, err := conn.Exec(context.Background(), "CREATE TABLE IF NOT EXISTS w (txn int, part int, PRIMARY KEY (txn, part))"); err != nil {
				t.Fatal(err)
			}
			conn.Close(context.Background())
		}
		verify(t, url, acked)

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
}

func startBinary(t *testing.T, bin, dataDir string) *process {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--listen", addr, "--data-dir", dataDir, "--log-level", "warn")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			t.Log("server:", sc.Text())
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			checkHugePages(t, cmd.Process.Pid)
			return &process{cmd: cmd, addr: addr}
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
	return len(present)
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
