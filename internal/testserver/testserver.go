// Package testserver starts an in-process streamdb (engine and pgwire
// server) on a loopback port for end-to-end tests, so that tests always go
// through the real wire protocol with real clients.
package testserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/internal/egress"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql"
)

// Server is a running streamdb.
type Server struct {
	// URL is a postgres:// connection string for the server.
	URL  string
	Addr string
	Dir  string

	cancel context.CancelFunc
	done   chan error
	front  *sql.Frontend
}

// Options configure Start.
type Options struct {
	// Dir is the data directory; a fresh temporary one when empty.
	Dir string
	// Log receives the server's log; discarded when nil.
	Log io.Writer
	// MemoryLimit is the engine's (sql.Config.MemoryLimit).
	MemoryLimit uint64
	// Testing holds the engine's test hooks (sql.Config.Testing).
	Testing *engine.TestingKnobs
	// LogLevel is the least level logged; the zero value is info.
	LogLevel slog.Level
	// Egress is the engine's (sql.Config.Egress): nil allows every
	// destination.
	Egress *egress.Policy
	// Clock is the engine's time (sql.Config.Clock): an
	// engine.ManualClock makes mz_now() and temporal filters
	// deterministic (see Server.Tick).
	Clock engine.Clock
	// SubscribeBufferBytes is sql.Config.SubscribeBufferBytes.
	SubscribeBufferBytes int64
	// Starting makes Run return once the server listens, while its
	// store may still be opening (sql.Start), as the streamdb command
	// serves; otherwise Run returns once the store has opened.
	Starting bool
}

// Start runs a server until the test ends.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s, err := Run(opts, tb.TempDir)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Stop)
	return s
}

// Run starts a server; tempDir provides a data directory when opts.Dir is
// empty.
func Run(opts Options, tempDir func() string) (*Server, error) {
	dir := opts.Dir
	if dir == "" {
		dir = tempDir()
	}
	w := opts.Log
	if w == nil {
		w = io.Discard
	}
	log := slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: opts.LogLevel}))
	ctx, cancel := context.WithCancel(context.Background())
	front := sql.Start(ctx, sql.Config{DataDir: dir, Logger: log, MemoryLimit: opts.MemoryLimit, Egress: opts.Egress,
		Testing: opts.Testing, SubscribeBufferBytes: opts.SubscribeBufferBytes, Clock: opts.Clock})
	if !opts.Starting {
		if err := front.Wait(ctx); err != nil {
			cancel()
			front.Close()
			return nil, err
		}
	}
	srv := pgwire.NewServer(pgwire.Config{Listen: "127.0.0.1:0", Engine: front, Logger: log, Roles: front,
		Auth: pgwire.AuthConfig{MockNonceOf: front.MockNonce}})
	s := &Server{Dir: dir, cancel: cancel, done: make(chan error, 2), front: front}
	go func() { s.done <- front.Run(ctx) }()
	go func() { s.done <- srv.Run(ctx) }()
	select {
	case <-srv.Ready():
	case err := <-s.done:
		cancel()
		<-s.done
		front.Close()
		return nil, fmt.Errorf("server did not start: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		return nil, fmt.Errorf("server did not start within 10s")
	}
	s.Addr = srv.Addr().String()
	s.URL = fmt.Sprintf("postgres://streamdb@%s/streamdb?sslmode=disable", s.Addr)
	return s, nil
}

// Frontend returns the server's SQL front end.
func (s *Server) Frontend() *sql.Frontend { return s.front }

// Tick runs a tick at the clock's time and waits until it is visible:
// after a test moves a manual clock, the changes temporal filters have
// due by then are in every view.
func (s *Server) Tick(ctx context.Context) error { return s.front.Tick(ctx) }

// Stop shuts the server down and closes its store.
func (s *Server) Stop() {
	if s.cancel == nil {
		return
	}
	s.cancel()
	<-s.done
	<-s.done
	s.front.Close()
	s.cancel = nil
}
