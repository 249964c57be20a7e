package e2e

import (
	"bytes"
	"sync"
	"testing"

	"github.com/streamdb/streamdb/internal/testserver"
)

// startServer runs an in-process streamdb on dir (a fresh directory when
// empty). Its log is printed if the test fails.
func startServer(t testing.TB, dir string) *testserver.Server {
	t.Helper()
	log := &logBuffer{}
	srv := testserver.Start(t, testserver.Options{Dir: dir, Log: log})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	return srv
}

// logBuffer collects a server's log for the test to print on failure.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
