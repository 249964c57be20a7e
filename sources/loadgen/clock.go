package loadgen

import (
	"context"
	"time"

	"github.com/streamdb/streamdb/sources"
)

// clock is a generator's only source of time: timestamps, Batch.Time and
// pacing all read it. Tests substitute a virtual clock whose Sleep advances
// Now instantly, which makes rate limiting testable without waiting.
type clock interface {
	Now() time.Time
	// Sleep waits for d, returning early with ctx's error if ctx ends.
	Sleep(ctx context.Context, d time.Duration) error
}

// wallClock reads time from a function (time.Now or Options.Now) and
// sleeps on real timers.
type wallClock struct{ now func() time.Time }

func (c wallClock) Now() time.Time { return c.now() }

func (wallClock) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// idle blocks until ctx ends: a generator that has produced everything it
// will ever produce stays running (and its outputs readable) until dropped.
func idle(ctx context.Context) error {
	<-ctx.Done()
	return ctx.Err()
}

// tickFunc builds the changes of tick n at wall-clock time now.
type tickFunc func(n int64, now time.Time) [][]sources.Change

// runTicks emits one batch per interval, built by step for the tick
// numbers start, start+1, ... up to limit (0: unbounded), then idles; the
// position after tick n is base+n+1. The first tick is immediate. A tick
// that comes late (Emit blocked) is followed by the next one at once and
// the schedule restarts from there; missed ticks are not made up in a
// burst, as with time.Ticker.
func runTicks(ctx context.Context, clk clock, interval time.Duration, base, start, limit int64, sink sources.Sink, step tickFunc) error {
	sink.Status(sources.Running, "")
	next := clk.Now()
	for n := start; limit == 0 || n < limit; n++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if d := next.Sub(clk.Now()); d > 0 {
			if err := clk.Sleep(ctx, d); err != nil {
				return err
			}
		}
		now := clk.Now()
		if err := sink.Emit(ctx, newBatch(step(n, now), base+n+1, now)); err != nil {
			return err
		}
		next = next.Add(interval)
		if t := clk.Now(); t.After(next) {
			next = t
		}
	}
	return idle(ctx)
}
