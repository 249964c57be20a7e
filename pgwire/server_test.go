package pgwire

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden scripts with the server's answers")

// testServer is a server on a free loopback port with the fake engine.
type testServer struct {
	srv  *Server
	eng  *fakeEngine
	addr string
	logs *syncBuffer
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

// startServer runs a server until the test ends, then shuts it down and
// checks that every session and result was closed.
func startServer(t testing.TB, cfg Config) *testServer {
	t.Helper()
	eng := &fakeEngine{}
	if cfg.Engine == nil {
		cfg.Engine = eng
	}
	if cfg.Listen == "" {
		cfg.Listen = "127.0.0.1:0"
	}
	logs := &syncBuffer{}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	srv := NewServer(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	select {
	case <-srv.Ready():
	case err := <-done:
		cancel()
		t.Fatalf("server did not start: %v", err)
	}
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("server did not shut down")
		}
		if n := eng.sessions.Load(); n != 0 {
			t.Errorf("%d sessions not closed", n)
		}
		if n := eng.openResults.Load(); n != 0 {
			t.Errorf("%d results not closed", n)
		}
	})
	return &testServer{srv: srv, eng: eng, addr: srv.Addr().String(), logs: logs}
}

// TestScripts plays the golden protocol conversations in testdata/scripts.
// With -update it rewrites them from the server's answers; review the diff.
func TestScripts(t *testing.T) {
	for _, path := range scriptFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ts := startServer(t, Config{})
			got, want := runScriptFile(t, ts.addr, path)
			if *update {
				if err := os.WriteFile(path, []byte(scriptHeader(path)+got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if got != want {
				t.Errorf("answers differ from %s (-want +got):\n%s", path, lineDiff(want, got))
			}
		})
	}
}
