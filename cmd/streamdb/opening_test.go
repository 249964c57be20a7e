package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
)

// engineFunc is a pgwire.Engine that records its connections.
type engineFunc func(s pgwire.Startup) (pgwire.Session, error)

func (f engineFunc) Connect(_ context.Context, s pgwire.Startup) (pgwire.Session, error) {
	return f(s)
}

// TestOpening checks that a connection made while the store opens waits
// for it, that one whose client gives up first fails with 57P03, and that
// a store that fails to open fails the connections with 57P03 too.
func TestOpening(t *testing.T) {
	o := newOpening()
	connected := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := o.Connect(context.Background(), pgwire.Startup{User: "waiting"})
		done <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := o.Connect(ctx, pgwire.Startup{User: "impatient"}); pgerr.CodeOf(err) != pgerr.CannotConnectNow {
		t.Errorf("connect given up while opening: %v, want 57P03", err)
	}
	select {
	case err := <-done:
		t.Fatalf("connect returned before the store opened: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	o.open(engineFunc(func(s pgwire.Startup) (pgwire.Session, error) {
		connected <- s.User
		return nil, nil
	}), nil)
	if err := <-done; err != nil {
		t.Fatalf("connect after the store opened: %v", err)
	}
	if u := <-connected; u != "waiting" {
		t.Errorf("engine got user %q", u)
	}

	failed := newOpening()
	failed.open(nil, errors.New("store locked"))
	if _, err := failed.Connect(context.Background(), pgwire.Startup{}); pgerr.CodeOf(err) != pgerr.CannotConnectNow {
		t.Errorf("connect to a server whose store failed: %v, want 57P03", err)
	}
}
