package pgwire

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// pipeConn is a connection whose input is a fixed byte string (then EOF)
// and whose output goes to out, or nowhere, so a fuzz input is served with
// no network and no other goroutine.
type pipeConn struct {
	r   *bytes.Reader
	out io.Writer
}

func (c *pipeConn) Read(p []byte) (int, error) { return c.r.Read(p) }

func (c *pipeConn) Write(p []byte) (int, error) {
	if c.out == nil {
		return len(p), nil
	}
	return c.out.Write(p)
}

func (c *pipeConn) Close() error                       { return nil }
func (c *pipeConn) LocalAddr() net.Addr                { return &net.TCPAddr{} }
func (c *pipeConn) RemoteAddr() net.Addr               { return &net.TCPAddr{} }
func (c *pipeConn) SetDeadline(t time.Time) error      { return nil }
func (c *pipeConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *pipeConn) SetWriteDeadline(t time.Time) error { return nil }

// FuzzServerMessages serves arbitrary bytes after a valid startup. The
// server must neither crash nor hang, must not panic (a panic is recovered
// and logged, so the log is checked; the fake engine's own panics and
// unbounded statements are disabled), and must close every session and
// result it opened.
func FuzzServerMessages(f *testing.F) {
	for _, seed := range scriptSeeds(f) {
		f.Add(seed)
	}
	startup := startupPacket(pgproto3.ProtocolVersion30, "user", "fuzz", "database", "fuzz")
	f.Fuzz(func(t *testing.T, data []byte) {
		eng := &fakeEngine{tame: true}
		var logs bytes.Buffer
		srv := NewServer(Config{
			Engine:         eng,
			Logger:         slog.New(slog.NewTextHandler(&logs, nil)),
			MaxMessageSize: 1 << 16,
		})
		in := append(append([]byte(nil), startup...), data...)
		c := srv.newConn(&pipeConn{r: bytes.NewReader(in)}, func(error) {})
		done := make(chan struct{})
		go func() {
			defer close(done)
			c.serve(context.Background())
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("server hung")
		}
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("server panicked:\n%s", logs.String())
		}
		if n := eng.sessions.Load(); n != 0 {
			t.Fatalf("%d sessions left open", n)
		}
		if n := eng.openResults.Load(); n != 0 {
			t.Fatalf("%d results left open", n)
		}
	})
}

// scriptSeeds turns every block of the golden scripts into the bytes a
// client sends, a corpus of valid conversations for the fuzzer to mutate.
// The checked-in seeds under testdata/fuzz add hand-made broken input.
func scriptSeeds(t testing.TB) [][]byte {
	files, err := filepath.Glob(filepath.Join("testdata", "scripts", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var seeds [][]byte
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var seed []byte
		for _, line := range strings.Split(string(data), "\n") {
			if line == "" || line == "send" || line == "----" || strings.HasPrefix(line, "#") {
				continue
			}
			msg, raw, err := frontendMessage(line)
			if err != nil {
				continue // an expectation line
			}
			if raw != nil {
				seed = append(seed, raw...)
				continue
			}
			if seed, err = msg.Encode(seed); err != nil {
				t.Fatal(err)
			}
		}
		seeds = append(seeds, seed)
	}
	return seeds
}
