package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/streamdb/streamdb/dataflow"
)

// wakeup returns a channel that receives when the earliest change a
// timed flow has scheduled falls due (nil, never, when none has), and
// the function that releases it.
func (e *Engine) wakeup() (<-chan struct{}, func()) {
	var at int64
	found := false
	for _, f := range e.timed {
		if t, ok := f.graph.NextWake(); ok && (!found || t < at) {
			at, found = t, true
		}
	}
	if !found {
		return nil, func() {}
	}
	// A tick's time is whole milliseconds: the first at or after at.
	ms := (at + 999) / 1000
	return e.clock.After(time.UnixMilli(ms))
}

// timeTick is a tick without input: time alone has moved on to where
// timed flows (temporal filters) have changes due. It steps them, and
// the flows that read them, at the tick's timestamp, and publishes the
// result. The views that persist their state write its changes, with
// the tick's timestamp, in a batch of the tick's own, committed without
// waiting for the disk: no input depends on it, and a restart from an
// earlier state releases the same rows again at its first time tick.
func (e *Engine) timeTick(ctx context.Context) error {
	ts := e.nextTS()
	e.ts = ts
	e.ticked = true
	var pushes []subPush
	var err error
	batch := e.store.NewBatch()
	batch.SetMeta("ts", tsValue(ts))
	e.state = batch
	done := make(chan struct{})
	e.maintain <- func() {
		defer close(done)
		pushes, err = e.propagate(ctx, map[uint64]dataflow.Batch{}, ts)
	}
	<-done
	e.state = nil
	if err != nil {
		batch.Discard()
		return err
	}
	if err := batch.CommitUnsynced(); err != nil {
		return fmt.Errorf("commit time tick: %w", err)
	}
	for _, p := range pushes {
		if p.sub.tick(ts, p.delta, p.errs, p.share) {
			e.removeSubscription(p.sub)
		}
	}
	e.publish()
	return nil
}

// Tick runs a tick at the clock's current time and waits until it is
// published: every change a temporal filter has due by then is applied.
// The engine runs such ticks by itself when they come; tests that move
// a ManualClock call Tick to wait for one deterministically.
func (e *Engine) Tick(ctx context.Context) error {
	// The tick must not be canceled halfway: a dataflow stepped in
	// part is poisoned.
	return e.call(ctx, func(e *Engine) error {
		if uint64(e.clock.Now().UnixMilli()) <= e.ts {
			// A tick at or past the clock's time has run (the one its
			// wake-up ran): everything due by now is applied, and
			// another tick would put the engine's time ahead of the
			// clock.
			return nil
		}
		return e.timeTick(context.WithoutCancel(ctx))
	})
}

// Now returns the engine clock's time. It may be called from any
// goroutine.
func (e *Engine) Now() time.Time { return e.clock.Now() }

// addTimed registers a flow whose output changes with time.
func (e *Engine) addTimed(f *flow) {
	if f.graph.Timed() {
		e.timed = append(e.timed, f)
	}
}

// dropTimed unregisters a flow.
func (e *Engine) dropTimed(f *flow) {
	for i, t := range e.timed {
		if t == f {
			e.timed = append(e.timed[:i:i], e.timed[i+1:]...)
			return
		}
	}
}
