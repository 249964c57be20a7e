package pgwire

import (
	"context"
	"encoding/binary"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// COPY. A statement takes part in the COPY sub-protocols through its
// Result: a Result that is also a CopyInResult receives the client's
// COPY FROM STDIN data, one that is a CopyOutResult is sent as COPY TO
// STDOUT data. Everything else about the statement (Describe, the command
// tag, errors, transactions) is as for any other.

// CopyInResult is the Result of a COPY … FROM STDIN. pgwire answers its
// Execute with CopyInResponse, passes every CopyData to CopyData, and ends
// with CopyDone (after which Tag gives "COPY n") or CopyFail. An error
// from CopyData ends the COPY: the rest of the client's data is discarded,
// as PostgreSQL does.
type CopyInResult interface {
	Result
	// CopyFormat reports the overall format (binary or text, which
	// includes CSV) and the number of columns.
	CopyFormat() (binary bool, columns int)
	// CopyData receives one CopyData message's payload; the slice is
	// valid only during the call.
	CopyData(ctx context.Context, data []byte) error
	// CopyDone is called at the client's CopyDone: the data is complete
	// and the statement finishes (writes, commits).
	CopyDone(ctx context.Context) error
	// CopyFail is called when the client gives up with CopyFail; the
	// statement fails with the returned error.
	CopyFail(ctx context.Context, message string) error
}

// CopyOutResult is the Result of a COPY … TO STDOUT. pgwire sends
// CopyOutResponse, then one CopyData message per piece NextCopyData
// returns, then CopyDone and CommandComplete with Tag. The output
// streams: when the result is also a LiveResult, what is buffered is
// flushed whenever the next piece is not ready, so a COPY that never ends
// (COPY (SUBSCRIBE …) TO STDOUT) delivers its data as it is produced.
type CopyOutResult interface {
	Result
	// CopyFormat reports the overall format and the number of columns.
	CopyFormat() (binary bool, columns int)
	// NextCopyData returns the next piece of data, usually one row's
	// line; ok is false at the end. The slice is valid until the next
	// call.
	NextCopyData(ctx context.Context) (data []byte, ok bool, err error)
}

// copyFormats describes a COPY's format for CopyInResponse and
// CopyOutResponse: every column has the overall format.
func copyFormats(binary bool, columns int) (byte, []uint16) {
	var f uint16
	if binary {
		f = 1
	}
	codes := make([]uint16, columns)
	for i := range codes {
		codes[i] = f
	}
	return byte(f), codes
}

// copyIn runs the COPY FROM STDIN sub-protocol until CopyDone or
// CopyFail. Flush and Sync are ignored inside it, as PostgreSQL does; any
// other message is a protocol violation that fails the COPY. After an
// error the COPY ends at once, as in PostgreSQL: the error and
// ReadyForQuery reach the client while it may still be sending, and the
// main loop discards the rest of its CopyData.
func (c *conn) copyIn(ctx context.Context, res CopyInResult) error {
	overall, codes := copyFormats(res.CopyFormat())
	if err := c.w.send(&pgproto3.CopyInResponse{OverallFormat: overall, ColumnFormatCodes: codes}); err != nil {
		return err
	}
	if err := c.w.flush(); err != nil {
		return err
	}
	for {
		msg, decodeErr, err := c.r.next(nil)
		if err != nil {
			return err
		}
		if decodeErr != nil {
			return local(decodeErr)
		}
		switch m := msg.(type) {
		case *pgproto3.CopyData:
			if err := res.CopyData(ctx, m.Data); err != nil {
				return err
			}
		case *pgproto3.CopyDone:
			return res.CopyDone(ctx)
		case *pgproto3.CopyFail:
			return res.CopyFail(ctx, m.Message)
		case *pgproto3.Flush, *pgproto3.Sync:
		default:
			return localf(pgerr.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", msgType(msg))
		}
	}
}

// msgType returns a frontend message's type byte.
func msgType(msg pgproto3.FrontendMessage) byte {
	b, err := msg.Encode(nil)
	if err != nil || len(b) == 0 {
		return 0
	}
	return b[0]
}

// copyOut streams a COPY TO STDOUT result.
func (c *conn) copyOut(ctx context.Context, res CopyOutResult) error {
	overall, codes := copyFormats(res.CopyFormat())
	if err := c.w.send(&pgproto3.CopyOutResponse{OverallFormat: overall, ColumnFormatCodes: codes}); err != nil {
		return err
	}
	live, _ := res.(LiveResult)
	var flusher *liveFlusher
	if live != nil {
		var stop func()
		ctx, stop = c.watchClient(ctx)
		defer stop()
		flusher = newLiveFlusher(c.w, &c.srv.streaming)
		defer flusher.stop()
	}
	for {
		if live != nil && !live.Ready() {
			if err := flusher.idle(ctx, live.Ready); err != nil {
				return err
			}
		}
		data, ok, err := res.NextCopyData(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := c.w.copyData(data); err != nil {
			return err
		}
	}
	return c.w.send(&pgproto3.CopyDone{})
}

// copyData appends a CopyData message.
func (w *writer) copyData(data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	w.buf = append(w.buf, 'd', 0, 0, 0, 0)
	binary.BigEndian.PutUint32(w.buf[len(w.buf)-4:], uint32(len(data)+4))
	w.buf = append(w.buf, data...)
	if len(w.buf) >= flushSize {
		w.flushLocked()
	}
	return w.err
}

// runCopy runs the COPY sub-protocol of a result that has one; handled is
// false for ordinary results.
func (c *conn) runCopy(ctx context.Context, res Result) (handled bool, err error) {
	switch r := res.(type) {
	case CopyInResult:
		return true, c.copyIn(ctx, r)
	case CopyOutResult:
		return true, c.copyOut(ctx, r)
	}
	return false, nil
}
