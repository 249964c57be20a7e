package pgwire

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/streamdb/streamdb/pgerr"
)

// errClientGone cancels a live result whose client closed the
// connection.
var errClientGone = pgerr.New(pgerr.ConnectionException, "the client closed the connection")

// watchClient watches the connection while a live result (a SUBSCRIBE,
// a FETCH from one) streams, so that a client that goes away is noticed
// at once: the server reads nothing while it sends a result, and a write
// to a closed TCP connection fails only at the second write after the
// close, which for an idle subscription may be hours away. It returns a
// context cancelled when the client closes the connection (or sends
// Terminate), and stop, which ends the watch and must be called before
// the connection reads again.
//
// The watch is a read of one byte more than the message reader has
// buffered (a client of the extended protocol sent its Sync with the
// Execute), which a past read deadline interrupts when the result ends.
// Bytes the client sends meanwhile (a pipelined message) stay buffered
// for the next read; the watch ends with them, unless they are a
// Terminate.
func (c *conn) watchClient(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		n := c.r.br.Buffered()
		if n >= c.r.br.Size() {
			return // nothing more can be read before the buffered messages
		}
		b, err := c.r.br.Peek(n + 1)
		var ne net.Error
		switch {
		case err == nil && b[n] == 'X':
			cancel(errClientGone)
		case err != nil && !(errors.As(err, &ne) && ne.Timeout()):
			c.log.Debug("client went away during a live result", "err", err)
			cancel(errClientGone)
		}
	}()
	return ctx, func() {
		_ = c.nc.SetReadDeadline(time.Unix(1, 0))
		<-done
		_ = c.nc.SetReadDeadline(time.Time{})
		cancel(nil)
	}
}
