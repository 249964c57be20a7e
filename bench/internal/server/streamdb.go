package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// Streamdb is a running streamdb server process with its own data
// directory.
type Streamdb struct {
	// URL is a postgres:// connection string for the server.
	URL string
	// Dir holds the data directory and the server's log.
	Dir string

	cmd  *exec.Cmd
	done chan error
}

// Start runs the streamdb binary bin on a free loopback port with a fresh
// data directory, and any further flags, and returns once it accepts
// queries.
func Start(ctx context.Context, bin string, flags ...string) (*Streamdb, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("streamdb binary: %w (run make build first)", err)
	}
	dir, err := os.MkdirTemp("", "streamdb-bench-*")
	if err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	logf, err := os.Create(filepath.Join(dir, "streamdb.log"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	defer logf.Close()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, append([]string{"--listen", addr, "--data-dir", filepath.Join(dir, "data"), "--log-level", "warn"}, flags...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s := &Streamdb{URL: fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", addr), Dir: dir, cmd: cmd, done: make(chan error, 1)}
	go func() { s.done <- cmd.Wait() }()
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// waitReady polls until a connection succeeds, the process exits, or ten
// seconds pass.
func (s *Streamdb) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		cctx, cancel := context.WithTimeout(ctx, time.Second)
		conn, err := pgx.Connect(cctx, s.URL)
		cancel()
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case werr := <-s.done:
			s.done <- werr
			return fmt.Errorf("streamdb exited during startup: %v\n%s", werr, s.LogTail(20))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("streamdb did not accept connections within 10s: %v\n%s", err, s.LogTail(20))
		}
	}
}

// PID is the server's process id.
func (s *Streamdb) PID() int { return s.cmd.Process.Pid }

// Usage reads the server's CPU time and memory so far.
func (s *Streamdb) Usage() (Usage, error) { return ReadUsage(s.PID()) }

// Exited reports whether the process has ended, with its exit error.
func (s *Streamdb) Exited() (bool, error) {
	select {
	case err := <-s.done:
		s.done <- err
		return true, err
	default:
		return false, nil
	}
}

// LogTail returns the last n lines of the server's log, for error
// messages.
func (s *Streamdb) LogTail(n int) string {
	b, err := os.ReadFile(filepath.Join(s.Dir, "streamdb.log"))
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Stop ends the server (SIGTERM, then SIGKILL after ten seconds) and
// removes its directory.
func (s *Streamdb) Stop() {
	if exited, _ := s.Exited(); !exited {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-s.done:
			s.done <- err
		case <-time.After(10 * time.Second):
			_ = s.cmd.Process.Kill()
			s.done <- errors.Join(<-s.done, errors.New("killed after SIGTERM timed out"))
		}
	}
	os.RemoveAll(s.Dir)
}

// freePort asks the kernel for a loopback port that is free right now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
