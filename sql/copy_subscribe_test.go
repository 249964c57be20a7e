package sql_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/streamdb/streamdb/internal/testserver"
)

// lineWriter collects COPY data and signals each write.
type lineWriter struct {
	mu   sync.Mutex
	text strings.Builder
	ch   chan struct{}
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	w.text.Write(p)
	w.mu.Unlock()
	select {
	case w.ch <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (w *lineWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.text.String()
}

// TestCopySubscribe streams a subscription as COPY text: the snapshot,
// then each change as it commits, until the client cancels.
func TestCopySubscribe(t *testing.T) {
	srv := testserver.Start(t, testserver.Options{})
	conn := connect(t, srv.URL)
	exec(t, conn, "CREATE TABLE cs (x int, s text)")
	exec(t, conn, "INSERT INTO cs VALUES (1, 'tab\there')")
	reader := connect(t, srv.URL)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &lineWriter{ch: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() {
		_, err := reader.PgConn().CopyTo(ctx, w, "COPY (SUBSCRIBE cs) TO STDOUT")
		done <- err
	}()
	waitFor := func(want string) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for !strings.Contains(w.String(), want) {
			select {
			case <-w.ch:
			case <-deadline:
				t.Fatalf("waiting for %q, have %q", want, w.String())
			}
		}
	}
	waitFor("\t1\t1\ttab\\there\n")
	exec(t, conn, "UPDATE cs SET x = 2")
	waitFor("\t-1\t1\ttab\\there\n")
	waitFor("\t1\t2\ttab\\there\n")
	cancel()
	if err := <-done; err == nil {
		t.Error("COPY (SUBSCRIBE) ended without an error")
	}
}
