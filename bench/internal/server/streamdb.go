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
	bin  string
	addr string
}

// Start runs the streamdb binary bin on a free loopback port with a fresh
// data directory, with args added to its command line, and returns once
// it accepts queries.
func Start(ctx context.Context, bin string, args ...string) (*Streamdb, error) {
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
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	s := &Streamdb{URL: fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", addr), Dir: dir, bin: bin, addr: addr}
	if err := s.launch(args); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := s.waitReady(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// launch starts the server process on the directory and address of s,
// appending to its log.
func (s *Streamdb) launch(args []string) error {
	logf, err := os.OpenFile(filepath.Join(s.Dir, "streamdb.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.bin, append([]string{"--listen", s.addr, "--data-dir", filepath.Join(s.Dir, "data"), "--log-level", "warn"}, args...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.done = cmd, make(chan error, 1)
	go func() { s.done <- cmd.Wait() }()
	return nil
}

// Kill ends the server with SIGKILL, as a crash would, and waits for it
// to exit; its directory stays.
func (s *Streamdb) Kill() {
	if exited, _ := s.Exited(); !exited {
		_ = s.cmd.Process.Kill()
		err := <-s.done
		s.done <- err
	}
}

// Restart starts the server again on its data directory and address, with
// args added to its command line, once the process before has exited,
// and returns as soon as the process has started (see WaitReady).
func (s *Streamdb) Restart(args ...string) error { return s.RestartBinary(s.bin, args...) }

// RestartBinary restarts the server as Restart does, running the binary
// bin from now on: how a harness compares two builds on one data
// directory.
func (s *Streamdb) RestartBinary(bin string, args ...string) error {
	if exited, _ := s.Exited(); !exited {
		return errors.New("server: Restart of a running server")
	}
	s.bin = bin
	return s.launch(args)
}

// WaitReady waits until the server accepts queries.
func (s *Streamdb) WaitReady(ctx context.Context) error { return s.waitReady(ctx) }

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

// Addr is the host:port the server listens on.
func (s *Streamdb) Addr() string { return s.addr }

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
