package sql

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/streamdb/streamdb/pgwire"
)

// runEngine opens an engine on a temporary directory and runs its tick
// loop until the test ends.
func runEngine(t *testing.T) *Frontend {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	e, err := Open(ctx, Config{DataDir: t.TempDir(), Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ran := make(chan error, 1)
	go func() { ran <- e.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-ran
		e.Close()
	})
	return e
}

// testSession connects a session to e for a test.
func testSession(t *testing.T, e *Frontend) *session {
	t.Helper()
	ps, err := e.Connect(context.Background(), pgwire.Startup{ProcessID: 1, Params: map[string]string{"user": "test", "database": "test"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ps.Close)
	return ps.(*session)
}

// execSQL runs each statement of a query string on s, reading every
// result to its end.
func execSQL(t *testing.T, s *session, query string) {
	t.Helper()
	ctx := context.Background()
	stmts, err := s.Parse(ctx, query)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	for _, st := range stmts {
		if _, _, err := st.Describe(ctx, nil); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		res, err := st.Execute(ctx, nil)
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		for {
			_, ok, err := res.Next(ctx)
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			if !ok {
				break
			}
		}
		res.Close()
	}
}
