package sqllogictest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// readyTimeout bounds waiting for a started streamdb to accept connections.
const readyTimeout = time.Minute

// Server is a streamdb process the runner started for itself, listening on
// a free loopback port with a fresh data directory.
type Server struct {
	bin  string
	dir  string    // temporary directory for data directories and logs
	out  io.Writer // notices about restarts
	cmd  *exec.Cmd
	url  string
	log  string
	done chan struct{} // closed when the process has exited
	runs int
}

// StartServer starts the streamdb binary bin and waits until it accepts
// connections. Notices (restarts, crashes) are written to out.
func StartServer(ctx context.Context, bin string, out io.Writer) (*Server, error) {
	dir, err := os.MkdirTemp("", "slt-streamdb-")
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = io.Discard
	}
	s := &Server{bin: bin, dir: dir, out: out}
	if err := s.start(ctx); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return s, nil
}

// URL is the connection string of the running server.
func (s *Server) URL() string { return s.url }

func (s *Server) start(ctx context.Context) error {
	s.runs++
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	data := filepath.Join(s.dir, "data"+strconv.Itoa(s.runs))
	s.log = filepath.Join(s.dir, "streamdb"+strconv.Itoa(s.runs)+".log")
	logf, err := os.Create(s.log)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(s.bin, "--listen", addr, "--data-dir", data)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting streamdb: %w", err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func(done chan struct{}) {
		cmd.Wait()
		close(done)
	}(s.done)
	s.url = "postgres://streamdb@" + addr + "/slt?sslmode=disable"
	return s.waitReady(ctx)
}

// waitReady polls until a connection succeeds, the process exits, or
// readyTimeout passes.
func (s *Server) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for {
		cctx, ccancel := context.WithTimeout(ctx, time.Second)
		pg, err := pgconn.Connect(cctx, s.url)
		ccancel()
		if err == nil {
			pg.Close(ctx)
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("streamdb exited before accepting connections (%v); log %s:\n%s", s.cmd.ProcessState, s.log, s.logTail())
		case <-ctx.Done():
			s.kill()
			return fmt.Errorf("streamdb did not accept connections within %v: %v; log %s:\n%s", readyTimeout, err, s.log, s.logTail())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Restart replaces the server with a fresh one on a new data directory,
// after it died or stopped answering, and returns the new URL.
func (s *Server) Restart(ctx context.Context) (string, error) {
	state := "stopped answering"
	select {
	case <-s.done:
		state = "exited (" + s.cmd.ProcessState.String() + ")"
	default:
	}
	fmt.Fprintf(s.out, "streamdb %s; restarting it on a fresh data directory. Log %s ends with:\n%s\n", state, s.log, s.logTail())
	s.kill()
	if err := s.start(ctx); err != nil {
		return "", err
	}
	return s.url, nil
}

// Stop terminates the server (SIGTERM, then SIGKILL after ten seconds) and
// removes its data and logs.
func (s *Server) Stop() error {
	s.kill()
	return os.RemoveAll(s.dir)
}

func (s *Server) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// logTail returns the last lines of the current log.
func (s *Server) logTail() string {
	data, err := os.ReadFile(s.log)
	if err != nil {
		return err.Error()
	}
	const max = 2000
	if len(data) > max {
		data = data[len(data)-max:]
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return string(data)
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before streamdb binds it; the ready check then fails loudly.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("listener has no TCP address")
	}
	return addr.Port, nil
}
