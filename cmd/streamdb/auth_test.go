//go:build unix

package main

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// binDir holds the server built for the tests that run it; built once.
var (
	binDir   string
	buildErr error
	buildBin sync.Once
)

// binary returns the path of the built server.
func binary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the server; skipped with -short")
	}
	buildBin.Do(func() {
		if binDir, buildErr = os.MkdirTemp("", "streamdb-bin-*"); buildErr != nil {
			return
		}
		if out, err := exec.Command("go", "build", "-o", binDir, ".").CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return filepath.Join(binDir, "streamdb")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// freeAddr returns a free port on host.
func freeAddr(t *testing.T, host string) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", host, err)
	}
	defer l.Close()
	return l.Addr().String()
}

// server is the binary running with some flags; its log is in log.
type server struct {
	cmd  *exec.Cmd
	addr string
	log  *syncBuffer
	done chan struct{}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// runServer starts the binary listening on addr with args and env, and
// waits until it accepts connections.
func runServer(t *testing.T, addr string, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"--listen", addr}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	s := &server{cmd: cmd, addr: addr, log: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(s.done) }()
	t.Cleanup(s.stop)
	// The server listens while its store opens; it has started, and
	// written what its first start writes, once it logs so.
	deadline := time.Now().Add(20 * time.Second)
	for {
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			if strings.Contains(s.log.String(), `msg="streamdb started"`) {
				return s
			}
		}
		select {
		case <-s.done:
			t.Fatalf("server exited: %v\n%s", cmd.ProcessState, s.log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("server did not start on %s:\n%s", addr, s.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM and waits for it.
func (s *server) stop() {
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// connect opens a pgx connection as user with password (none when empty).
func connect(addr, user, password string) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := url.URL{Scheme: "postgres", User: url.User(user), Host: addr, Path: "/streamdb", RawQuery: "sslmode=prefer"}
	if password != "" {
		u.User = url.UserPassword(user, password)
	}
	return pgx.Connect(ctx, u.String())
}

func sqlstate(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code + " " + pe.Message
	}
	return ""
}

// TestInsecureListenRefused runs the binary with --auth trust on addresses
// other hosts could reach: it must exit non-zero before creating or
// binding anything, saying why and what to do. None of these addresses is
// bound, so the test stays on loopback; the last treats 127.0.0.2 as
// non-local with --local-nets, the way the others are.
func TestInsecureListenRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--listen", "0.0.0.0:6875"},
		{"--listen", "[::]:6875"},
		{"--listen", ":6875"},
		{"--listen", "127.0.0.2:6875", "--local-nets", "127.0.0.1/32"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			cmd := exec.Command(binary(t), append(args, "--auth", "trust", "--data-dir", dir)...)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() == 0 {
				t.Fatalf("exit: %v\n%s", err, out)
			}
			for _, want := range []string{"refusing to listen on " + args[1] + " with --auth trust", "--auth local-trust", "--insecure"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("message lacks %q:\n%s", want, out)
				}
			}
			if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("data directory created before refusing: %v", err)
			}
		})
	}
}

// TestInsecureListenAllowed starts the binary as the last case above with
// --insecure: it starts, warns, and lets a client in without a password.
func TestInsecureListenAllowed(t *testing.T) {
	addr := freeAddr(t, "127.0.0.2")
	s := runServer(t, addr, nil, "--auth", "trust", "--insecure", "--local-nets", "127.0.0.1/32", "--data-dir", t.TempDir())
	conn, err := connect(addr, "streamdb", "")
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	if !strings.Contains(s.log.String(), "level=WARN msg=\"--insecure: every client") {
		t.Errorf("no warning in the log:\n%s", s.log)
	}
}

// TestFirstStart runs the binary's first start on a fresh data directory
// with the default --auth local-trust, and the test's clients made remote
// by --local-nets (only 127.0.0.2 is local; they connect from
// 127.0.0.1): the generated password is in initial-password and works
// over SCRAM, a wrong one gets 28P01, every file is the owner's alone, and
// after a restart the same password works and the log is quiet about it.
func TestFirstStart(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	addr := freeAddr(t, "127.0.0.1")
	args := []string{"--local-nets", "127.0.0.2/32", "--data-dir", dir}
	s := runServer(t, addr, nil, args...)
	pwFile := filepath.Join(dir, "initial-password")
	pw, err := os.ReadFile(pwFile)
	if err != nil {
		t.Fatal(err)
	}
	password := strings.TrimSpace(string(pw))
	if n := strings.Count(s.log.String(), pwFile); n != 1 {
		t.Errorf("log names %s %d times:\n%s", pwFile, n, s.log)
	}
	if !strings.Contains(s.log.String(), "without TLS") {
		t.Errorf("no warning about listening beyond the host without TLS:\n%s", s.log)
	}
	for _, tt := range []struct{ user, password, want string }{
		{"streamdb", "", `28P01 password authentication failed for user "streamdb"`},
		{"streamdb", "wrong", `28P01 password authentication failed for user "streamdb"`},
		{"nobody", password, `28P01 password authentication failed for user "nobody"`},
	} {
		if _, err := connect(addr, tt.user, tt.password); sqlstate(err) != tt.want {
			t.Errorf("%s/%q: %v, want %s", tt.user, tt.password, err, tt.want)
		}
	}
	conn, err := connect(addr, "streamdb", password)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"CREATE TABLE t (id int PRIMARY KEY, v text)", "INSERT INTO t VALUES (1, 'a')", "CREATE MATERIALIZED VIEW m AS SELECT count(*) FROM t"} {
		if _, err := conn.Exec(context.Background(), q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	conn.Close(context.Background())
	s.stop()
	checkPrivate(t, dir)

	s = runServer(t, addr, nil, args...)
	conn, err = connect(addr, "streamdb", password)
	if err != nil {
		t.Fatalf("after a restart: %v", err)
	}
	var n int64
	if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("after a restart: %d rows, %v", n, err)
	}
	conn.Close(context.Background())
	if strings.Contains(s.log.String(), "initial-password") {
		t.Errorf("the restart named the password file again:\n%s", s.log)
	}
	s.stop()
	checkPrivate(t, dir)
}

// checkPrivate checks that dir and everything in it is its owner's alone.
func checkPrivate(t *testing.T, dir string) {
	t.Helper()
	files := 0
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		info, err := d.Info()
		if err != nil {
			t.Fatal(err)
		}
		want := fs.FileMode(0o600)
		if d.IsDir() {
			want = 0o700
		} else {
			files++
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", path, info.Mode().Perm(), want)
		}
		return nil
	})
	if files < 5 {
		t.Errorf("only %d files in %s", files, dir)
	}
}

// TestPasswordFromEnvironment starts with STREAMDB_PASSWORD and --auth
// scram: that password works, none is written to disk, and the data
// directory an older streamdb left open to others is closed.
func TestPasswordFromEnvironment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755) // whatever the test's umask
	addr := freeAddr(t, "127.0.0.1")
	s := runServer(t, addr, []string{"STREAMDB_PASSWORD=from the environment"}, "--auth", "scram", "--data-dir", dir)
	if _, err := connect(addr, "streamdb", ""); !strings.HasPrefix(sqlstate(err), "28P01") {
		t.Errorf("no password under --auth scram: %v", err)
	}
	conn, err := connect(addr, "streamdb", "from the environment")
	if err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	if _, err := os.Stat(filepath.Join(dir, "initial-password")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("initial-password written although STREAMDB_PASSWORD was set: %v", err)
	}
	if !strings.Contains(s.log.String(), "its mode is now 0700") {
		t.Errorf("no warning about the data directory's mode:\n%s", s.log)
	}
	s.stop()
	checkPrivate(t, dir)
}

// TestMaxConnectionsFlag checks that --max-connections reaches the server.
func TestMaxConnectionsFlag(t *testing.T) {
	addr := freeAddr(t, "127.0.0.1")
	runServer(t, addr, nil, "--max-connections", "1", "--data-dir", t.TempDir())
	conn, err := connect(addr, "streamdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := connect(addr, "streamdb", ""); sqlstate(err) != "53300 sorry, too many clients already" {
		t.Errorf("second connection: %v", err)
	}
}
