package pgwire

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// conn serves one client connection on its own goroutine. Everything but
// cancelRun and the writer belongs to that goroutine.
type conn struct {
	srv  *Server
	nc   net.Conn
	r    *msgReader
	w    *writer
	log  *slog.Logger
	sess Session

	pid    uint32
	secret [4]byte
	// tls is set once the connection has switched to TLS.
	tls bool
	// admitted is set when the connection counts against
	// MaxConnections; guarded by srv.mu.
	admitted bool

	stmts   map[string]*prepared
	portals map[string]*portal
	// skipping is set by an error in an extended-query message: messages
	// are discarded until the next Sync, as PostgreSQL does.
	skipping bool
	// inBlock is set from the first Execute after a Sync until the next
	// Sync: the statements in between form one implicit transaction.
	inBlock bool

	mu sync.Mutex
	// cancelRun cancels the work of the current batch of messages, the
	// messages up to the next ReadyForQuery; nil between batches. A
	// CancelRequest calls it unless the connection is waiting for the
	// client.
	cancelRun context.CancelCauseFunc
	// stop cancels the connection's context when the server shuts down.
	stop context.CancelCauseFunc
}

// serve runs the connection until the client leaves, a fatal error, or
// shutdown. ctx is cancelled (with cause errAdminShutdown) on shutdown.
func (c *conn) serve(ctx context.Context) {
	defer c.close()
	defer c.recoverPanic()
	if !c.startup(ctx) {
		return
	}
	var run context.Context
	var endRun context.CancelCauseFunc
	defer func() {
		if endRun != nil {
			c.setCancelRun(nil)
			endRun(nil)
		}
	}()
	for {
		if c.waitForClient(run) {
			c.setCancelRun(nil)
			endRun(nil)
			run, endRun = nil, nil
		}
		msg, decodeErr, err := c.r.next(nil)
		c.w.idle.Store(false)
		if err != nil {
			c.receiveFailed(ctx, err)
			return
		}
		if run == nil {
			run, endRun = context.WithCancelCause(ctx)
			c.setCancelRun(endRun)
		}
		ready, quit := c.handle(run, msg, decodeErr)
		if ready {
			c.setCancelRun(nil)
			endRun(nil)
			run, endRun = nil, nil
		}
		if quit || c.w.failed() != nil {
			return
		}
		if ctx.Err() != nil {
			c.sendFatal(context.Cause(ctx))
			return
		}
	}
}

// handle processes one message. ready reports that it ended with
// ReadyForQuery; quit that the connection must close.
func (c *conn) handle(ctx context.Context, msg pgproto3.FrontendMessage, decodeErr error) (ready, quit bool) {
	switch msg.(type) {
	case *pgproto3.Terminate:
		return false, true
	case *pgproto3.Sync:
		failed := c.skipping
		c.skipping = false
		if decodeErr != nil {
			c.sendError(ctx, local(decodeErr))
		}
		if c.inBlock {
			c.inBlock = false
			var blockErr error
			if failed {
				blockErr = errBlockFailed
			}
			if err := c.sess.EndBlock(blockErr); err != nil && c.sendError(ctx, err) {
				return true, true
			}
		}
		return true, c.ready()
	}
	if c.skipping {
		return false, false
	}
	var err error
	switch m := msg.(type) {
	case *pgproto3.Query:
		if decodeErr == nil {
			return true, c.simpleQuery(ctx, m.String)
		}
	case *pgproto3.FunctionCall:
		if decodeErr == nil {
			decodeErr = pgerr.New(pgerr.FeatureNotSupported, "fastpath function calls are not supported")
		}
	case *pgproto3.CopyData, *pgproto3.CopyDone, *pgproto3.CopyFail:
		// Accepted and ignored, as PostgreSQL does: a client may still be
		// sending COPY data after the COPY failed.
		return false, false
	case *pgproto3.Parse:
		err = c.parse(ctx, m)
	case *pgproto3.Bind:
		err = c.bind(m)
	case *pgproto3.Describe:
		err = c.describe(m)
	case *pgproto3.Execute:
		err = c.execute(ctx, m)
	case *pgproto3.Close:
		err = c.closeObject(m)
	case *pgproto3.Flush:
		c.w.flush()
	}
	if decodeErr != nil {
		err = local(decodeErr)
	}
	if err == nil {
		return false, false
	}
	if quit := c.sendError(ctx, err); quit {
		return false, true
	}
	switch msg.(type) {
	case *pgproto3.Query, *pgproto3.FunctionCall:
		// Not extended-query messages: no skipping, and ReadyForQuery now.
		return true, c.ready()
	}
	c.skipping = true
	return false, false
}

// sendError reports err to the client and to the session if pgwire raised
// it. It returns true when the error is fatal and the connection must end.
func (c *conn) sendError(ctx context.Context, err error) (quit bool) {
	if c.w.failed() != nil {
		return true // the client is gone; the error was about writing to it
	}
	err = statementError(ctx, err)
	var le localError
	if c.sess != nil && errors.As(err, &le) {
		c.sess.Abort(err)
	}
	quit = isFatal(err)
	c.w.send(errorResponse(c.log, err, quit))
	// Like PostgreSQL, send errors at once: a pipelining client learns of
	// the failure without waiting for its Sync.
	c.w.flush()
	return quit
}

// sendFatal reports err with severity FATAL; the connection then closes.
func (c *conn) sendFatal(err error) {
	c.w.send(errorResponse(c.log, err, true))
	c.w.flush()
}

// ready ends a batch of messages: portals die with their transaction, and
// ReadyForQuery reports the transaction state. It returns true when the
// connection failed. In a failed transaction block ('E') portals stay until
// the block ends, as in PostgreSQL, where using one reports the failed
// transaction rather than a missing portal.
func (c *conn) ready() (quit bool) {
	status := c.sess.TxStatus()
	if status == 'I' {
		c.closePortals()
	}
	return c.w.readyForQuery(status) != nil
}

// receiveFailed ends the connection after a failed read: quietly when the
// client went away, with FATAL when it broke the protocol or the server is
// shutting down.
func (c *conn) receiveFailed(ctx context.Context, err error) {
	switch {
	case ctx.Err() != nil:
		c.sendFatal(context.Cause(ctx))
	case pgerr.As(err) != nil:
		c.log.Debug("protocol violation", "err", err)
		c.sendFatal(err)
	case errors.Is(err, io.EOF):
		// The client closed the connection without Terminate.
	case errors.Is(err, io.ErrUnexpectedEOF):
		c.log.Debug("connection closed inside a message")
	default:
		c.log.Debug("read failed", "err", err)
	}
}

func (c *conn) setCancelRun(cancel context.CancelCauseFunc) {
	c.mu.Lock()
	c.cancelRun = cancel
	c.mu.Unlock()
}

// waitForClient marks the connection as waiting for the client's next
// message. It reports whether run was cancelled by a CancelRequest that
// arrived after the work it was meant for had finished; PostgreSQL drops
// such a cancel when it starts waiting, so the caller starts a new context.
func (c *conn) waitForClient(run context.Context) (stale bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.idle.Store(true)
	return run != nil && run.Err() != nil
}

// cancel cancels the statement running on behalf of a CancelRequest. Like
// PostgreSQL it does nothing while the connection waits for the client,
// also between the messages of a batch.
func (c *conn) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelRun != nil && !c.w.idle.Load() {
		c.cancelRun(pgerr.Canceled())
	}
}

// shutdown makes the connection end: its context is cancelled, which stops
// a running statement, and a blocked read is interrupted. A client that
// does not read its output gets a few seconds before writes fail.
func (c *conn) shutdown() {
	c.stop(errAdminShutdown)
	now := time.Now()
	c.nc.SetReadDeadline(now)
	c.nc.SetWriteDeadline(now.Add(5 * time.Second))
}

// recoverPanic turns a panic in the engine or in pgwire into a FATAL
// XX000 for this client only; the server and other sessions go on.
func (c *conn) recoverPanic() {
	r := recover()
	if r == nil {
		return
	}
	c.log.Error("panic in connection", "panic", r, "stack", string(debug.Stack()))
	c.sendFatal(panicError(r))
}

// close releases the session and the connection.
func (c *conn) close() {
	c.closeSession()
	c.nc.Close()
	c.srv.unregister(c)
}

// closeSession closes the open results and the session, surviving a panic
// in the engine's Close methods.
func (c *conn) closeSession() {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("panic closing session", "panic", r, "stack", string(debug.Stack()))
		}
	}()
	c.closePortals()
	if c.sess != nil {
		c.sess.Close()
	}
}
