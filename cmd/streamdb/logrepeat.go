package main

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// A failure that repeats — the store unable to open a file at the
// descriptor limit, accept failing — logs the same line for every
// attempt: millions of lines and hundreds of megabytes a minute, which
// bury the first line that says what happened and fill the disk.
// repeatLimiter lets the first few lines of each message through per
// window and counts the rest; the next line of that message after the
// window says how many were dropped (suppressed_repeats). It limits
// warnings and errors only: lines below them report one event each (a
// view hydrated, a source started, a statement at debug level), and a
// restart with more than five views lost the "hydrated" lines of the
// rest.

const (
	repeatWindow = 10 * time.Second
	repeatBurst  = 5
	// repeatKeys bounds the messages tracked; past it, ones whose window
	// ended are forgotten.
	repeatKeys = 1024
)

type repeatState struct {
	start      time.Time
	seen       int
	suppressed int
}

type repeatLimiter struct {
	mu   sync.Mutex
	now  func() time.Time
	msgs map[string]*repeatState
}

// admit reports whether a line with msg is logged, and how many before
// it were dropped since it last was.
func (l *repeatLimiter) admit(msg string) (ok bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	st := l.msgs[msg]
	if st == nil {
		if len(l.msgs) >= repeatKeys {
			for k, s := range l.msgs {
				if now.Sub(s.start) >= repeatWindow {
					delete(l.msgs, k)
				}
			}
		}
		st = &repeatState{start: now}
		l.msgs[msg] = st
	}
	if now.Sub(st.start) >= repeatWindow {
		dropped = st.suppressed
		*st = repeatState{start: now}
	}
	if st.seen >= repeatBurst {
		st.suppressed++
		return false, 0
	}
	st.seen++
	return true, dropped
}

// repeatHandler is a slog.Handler that drops repeats beyond the limiter's
// burst; handlers derived from it share its limiter.
type repeatHandler struct {
	next    slog.Handler
	limiter *repeatLimiter
}

func newRepeatHandler(next slog.Handler) *repeatHandler {
	return &repeatHandler{next: next, limiter: &repeatLimiter{now: time.Now, msgs: map[string]*repeatState{}}}
}

func (h *repeatHandler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *repeatHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < slog.LevelWarn {
		return h.next.Handle(ctx, r)
	}
	ok, dropped := h.limiter.admit(r.Message)
	if !ok {
		return nil
	}
	if dropped > 0 {
		r = r.Clone()
		r.AddAttrs(slog.Int("suppressed_repeats", dropped))
	}
	return h.next.Handle(ctx, r)
}

func (h *repeatHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &repeatHandler{next: h.next.WithAttrs(attrs), limiter: h.limiter}
}

func (h *repeatHandler) WithGroup(name string) slog.Handler {
	return &repeatHandler{next: h.next.WithGroup(name), limiter: h.limiter}
}
