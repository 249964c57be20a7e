package pgwire

import (
	"context"
	"sync/atomic"
	"time"
)

// A live result (a SUBSCRIBE) is flushed whenever its next row is not
// ready, so that a change reaches the client as it happens. A flush is a
// write to the socket and a wakeup of the client, which costs more than
// a view's tick: a hundred clients of a view that changes a few thousand
// times a second, each flushed per change, spent six times the server's
// work on the ticks themselves. So the flushes of all live results
// together are rationed: each waits at least liveFlushSpacing times the
// number of live results streaming since its own last flush, which holds
// the server to about 1/liveFlushSpacing flushes (and wakeups of the
// results' goroutines) a second however many subscribers there are. One
// subscriber flushes a change at once (or 200 µs after the last); a
// hundred take the changes of up to 20 ms together.
const (
	liveFlushSpacing = 200 * time.Microsecond
	maxLiveFlushWait = 20 * time.Millisecond
)

// liveFlusher flushes one live result's rows when the next one is not
// ready, waiting first (for the next row, or the flush's time) when its
// last flush was too recent. The wait batches the result's wakeups as
// well as its writes: rows that arrive meanwhile are taken together.
type liveFlusher struct {
	w *writer
	// streaming counts the server's live results streaming now.
	streaming *atomic.Int64
	// last is when the last flush began.
	last  time.Time
	timer *time.Timer
}

func newLiveFlusher(w *writer, streaming *atomic.Int64) *liveFlusher {
	streaming.Add(1)
	return &liveFlusher{w: w, streaming: streaming}
}

// idle is called when the result's next row is not ready: it flushes,
// or first waits out the rest of the result's share of flushes, after
// which it flushes only when no row has come meanwhile (the rows that
// came are taken first, and flushed with the next idle).
func (f *liveFlusher) idle(ctx context.Context, ready func() bool) error {
	wait := min(time.Duration(f.streaming.Load())*liveFlushSpacing, maxLiveFlushWait)
	if since := time.Since(f.last); since < wait {
		if f.timer == nil {
			f.timer = time.NewTimer(wait - since)
		} else {
			f.timer.Reset(wait - since)
		}
		select {
		case <-ctx.Done():
			f.timer.Stop()
			return nil // the result's Next reports it
		case <-f.timer.C:
		}
		if ready() {
			return nil
		}
	}
	f.last = time.Now()
	return f.w.flush()
}

// stop ends the result's streaming; the caller flushes what is left.
func (f *liveFlusher) stop() {
	f.streaming.Add(-1)
	if f.timer != nil {
		f.timer.Stop()
	}
}
