package sql

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// stmtRun is one execution of a statement, from Execute until its result
// is closed: a query's rows stream to the client after Execute returns
// (see queryResult), a COPY FROM receives its data in later calls, and
// the memory guard, statement_timeout and the client's cancel must reach
// that work too. Its context is the client's, detached from the call
// that started it (pgwire's contexts live for one call) and canceled by
// the guard (cause errOverMemory), by the timeout (errStatementTimeout),
// or by a cancel of the client's during any call attached to it.
type stmtRun struct {
	guard  *memoryGuard
	mem    *guardedStmt
	cancel context.CancelCauseFunc
	timer  *time.Timer
	// timedOut is set when the timeout canceled the statement.
	timedOut atomic.Bool
}

// errStatementTimeout is the cause of a statement canceled by its
// statement_timeout.
var errStatementTimeout = errors.New("statement timeout")

// startRun starts a statement's execution: its context, tracked by the
// memory guard and, when timed, limited by the session's
// statement_timeout.
func (s *session) startRun(ctx context.Context, timed bool) (context.Context, *stmtRun) {
	sctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	r := &stmtRun{guard: s.e.guard, cancel: cancel}
	r.mem = s.e.guard.track(cancel)
	sctx = context.WithValue(sctx, stmtRunKey{}, r)
	if !timed {
		return sctx, r
	}
	v, _ := s.info.settings.get("statement_timeout")
	if d, err := parseTimeout(v); err == nil && d > 0 {
		r.timer = time.AfterFunc(d, func() {
			r.timedOut.Store(true)
			cancel(errStatementTimeout)
		})
	}
	return sctx, r
}

type stmtRunKey struct{}

// runOf returns the execution a statement's context belongs to, nil
// outside one.
func runOf(ctx context.Context) *stmtRun {
	r, _ := ctx.Value(stmtRunKey{}).(*stmtRun)
	return r
}

// attach makes a cancel of ctx, the context of one call into the
// statement, cancel the statement, until the returned function is
// called; the guard counts the statement as executing meanwhile.
func (r *stmtRun) attach(ctx context.Context) func() {
	r.mem.executing.Add(1)
	stop := context.AfterFunc(ctx, func() { r.cancel(context.Cause(ctx)) })
	return func() {
		stop()
		r.mem.executing.Add(-1)
	}
}

// check reports the bytes the statement holds to the memory guard, and
// fails once the guard has canceled it.
func (r *stmtRun) check(held int64) error { return r.guard.check(r.mem, held) }

// checkMemory is stmtRun.check for the execution ctx belongs to.
func checkMemory(ctx context.Context, held int64) error {
	if r := runOf(ctx); r != nil {
		return r.check(held)
	}
	return nil
}

// err is the statement's error for err, an error of its work:
// PostgreSQL's when the guard or the timeout canceled it.
func (r *stmtRun) err(err error) error {
	switch {
	case err == nil:
		return nil
	case r.mem.canceled.Load():
		return r.guard.overMemoryError()
	case r.timedOut.Load():
		return pgerr.New(pgerr.QueryCanceled, "canceling statement due to statement timeout")
	}
	return err
}

// end ends the execution: its context is canceled and the guard forgets
// it.
func (r *stmtRun) end() {
	if r.timer != nil {
		r.timer.Stop()
	}
	r.cancel(context.Canceled)
	r.guard.untrack(r.mem)
}

// lingering is a result whose work goes on after Execute returns; it
// takes over its execution and ends it when it is closed.
type lingering interface {
	linger(r *stmtRun)
}
