package engine

import (
	"sync"
	"time"
)

// Clock is the engine's source of time: each tick's timestamp (mz_now()
// in views) and the wake-ups that run a tick when a temporal filter's
// next change falls due. The wall clock serves in production; tests
// inject a ManualClock and move time on themselves, so that temporal
// filters, ticks and mz_now() are deterministic and need no sleeps.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once the clock has reached
	// t, and a function that releases it early.
	After(t time.Time) (<-chan struct{}, func())
}

// wallClock is the real clock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) After(t time.Time) (<-chan struct{}, func()) {
	ch := make(chan struct{})
	timer := time.AfterFunc(time.Until(t), func() { close(ch) })
	return ch, func() { timer.Stop() }
}

// ManualClock is a Clock that moves only when told to (Set, Advance):
// tests drive the engine's time with it. It is safe for concurrent use.
type ManualClock struct {
	mu      sync.Mutex
	now     time.Time
	waiters []clockWaiter
}

type clockWaiter struct {
	at time.Time
	ch chan struct{}
}

// NewManualClock returns a clock standing at start.
func NewManualClock(start time.Time) *ManualClock { return &ManualClock{now: start} }

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// After returns a channel closed once the clock reaches t.
func (c *ManualClock) After(t time.Time) (<-chan struct{}, func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan struct{})
	if !t.After(c.now) {
		close(ch)
		return ch, func() {}
	}
	c.waiters = append(c.waiters, clockWaiter{at: t, ch: ch})
	return ch, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, w := range c.waiters {
			if w.ch == ch {
				c.waiters = append(c.waiters[:i], c.waiters[i+1:]...)
				return
			}
		}
	}
}

// Advance moves the clock on by d.
func (c *ManualClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// Set moves the clock to t; it never goes back.
func (c *ManualClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.After(c.now) {
		c.now = t
	}
	kept := c.waiters[:0]
	for _, w := range c.waiters {
		if !w.at.After(c.now) {
			close(w.ch)
			continue
		}
		kept = append(kept, w)
	}
	c.waiters = kept
}
