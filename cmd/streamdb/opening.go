package main

import (
	"context"
	"sync"

	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
)

// opening is the server's pgwire.Engine while the store opens. Opening
// the store replays what its log holds beyond its files and flushes it
// before the first read, seconds after a crash under load, while the
// server already listens: a client that connects meanwhile completes
// its startup handshake and waits for the store (as long as it is
// willing to wait), then gets its session from the engine. Views still
// hydrating after that are the engine's concern (engine/hydrate.go).
type opening struct {
	once  sync.Once
	ready chan struct{}
	eng   pgwire.Engine
	err   error
}

func newOpening() *opening { return &opening{ready: make(chan struct{})} }

// open hands over to eng, or with a nil eng fails the connections
// waiting and those to come with err.
func (o *opening) open(eng pgwire.Engine, err error) {
	o.once.Do(func() {
		o.eng, o.err = eng, err
		close(o.ready)
	})
}

func (o *opening) Connect(ctx context.Context, s pgwire.Startup) (pgwire.Session, error) {
	select {
	case <-o.ready:
	case <-ctx.Done():
		return nil, pgerr.New(pgerr.CannotConnectNow, "the database system is starting up")
	}
	if o.eng == nil {
		return nil, pgerr.New(pgerr.CannotConnectNow, "the database system did not start: %v", o.err)
	}
	return o.eng.Connect(ctx, s)
}
