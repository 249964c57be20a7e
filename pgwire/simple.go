package pgwire

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
)

// simpleQuery runs a Query message: every statement in the string in turn,
// each answered with RowDescription (text format) and DataRows when it
// returns rows, then CommandComplete. The first error stops the rest. A
// string of several statements runs as one implicit transaction, bracketed
// by Session.BeginBlock and EndBlock. It returns true when the connection
// must close.
func (c *conn) simpleQuery(ctx context.Context, query string) (quit bool) {
	// Like PostgreSQL, a simple query replaces the unnamed statement and
	// portal.
	c.closePortal("")
	delete(c.stmts, "")
	if err := checkEncoding(query); err != nil {
		return c.sendError(ctx, err) || c.ready()
	}
	stmts, err := c.sess.Parse(ctx, query)
	if err != nil {
		return c.sendError(ctx, err) || c.ready()
	}
	if len(stmts) == 0 {
		c.w.send(&pgproto3.EmptyQueryResponse{})
		return c.ready()
	}
	block := len(stmts) > 1
	if block {
		c.sess.BeginBlock()
	}
	for i, st := range stmts {
		// A statement is let go once it has run: a string of a million
		// statements holds one at a time.
		stmts[i] = nil
		if err = c.runSimple(ctx, st); err != nil {
			break
		}
	}
	if block {
		if cerr := c.sess.EndBlock(err); err == nil {
			err = cerr
		}
	}
	if err != nil && c.sendError(ctx, err) {
		return true
	}
	return c.ready()
}

// runSimple runs one statement of a simple query.
func (c *conn) runSimple(ctx context.Context, st Statement) error {
	params, cols, err := st.Describe(ctx, nil)
	if err != nil {
		return err
	}
	if len(params) > 0 {
		return pgerr.New(pgerr.UndefinedParameter, "there is no parameter $1")
	}
	res, err := st.Execute(ctx, nil)
	if err != nil {
		return err
	}
	defer res.Close()
	if handled, err := c.runCopy(ctx, res); handled {
		if err != nil {
			return err
		}
		return c.w.commandComplete(res.Tag())
	}
	if cols != nil {
		if err := c.w.rowDescription(cols, nil); err != nil {
			return err
		}
	}
	if _, _, err := c.streamRows(ctx, res, cols, nil, 0); err != nil {
		return err
	}
	return c.w.commandComplete(res.Tag())
}

// streamRows sends up to limit rows of res (all when limit is 0) and
// reports how many it sent and whether the result is exhausted.
func (c *conn) streamRows(ctx context.Context, res Result, cols []Column, formats []int16, limit int) (n int, done bool, err error) {
	cfg := c.sess.TextConfig()
	live, _ := res.(LiveResult)
	var flusher *liveFlusher
	if live != nil {
		var stop func()
		ctx, stop = c.watchClient(ctx)
		defer stop()
		flusher = newLiveFlusher(c.w, &c.srv.streaming)
		defer flusher.stop()
	}
	for limit == 0 || n < limit {
		if live != nil && !live.Ready() {
			// The next row may be a long way off: send what is buffered.
			if err := flusher.idle(ctx, live.Ready); err != nil {
				return n, false, err
			}
		}
		row, ok, err := res.Next(ctx)
		if err != nil {
			return n, false, err
		}
		if !ok {
			return n, true, nil
		}
		if len(row) != len(cols) {
			return n, false, fmt.Errorf("result row has %d columns, but the statement describes %d", len(row), len(cols))
		}
		if err := c.w.dataRow(row, cols, formats, cfg); err != nil {
			return n, false, err
		}
		n++
	}
	return n, false, nil
}

// checkEncoding rejects text that is not valid UTF-8, the only client
// encoding streamdb speaks, with PostgreSQL's error.
func checkEncoding(s string) error {
	if utf8.ValidString(s) {
		return nil
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			return localf(pgerr.CharacterNotInRepertoire, "invalid byte sequence for encoding \"UTF8\": 0x%02x", s[i])
		}
		i += size
	}
	return nil
}
