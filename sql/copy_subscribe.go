package sql

import (
	"context"
	"strconv"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// bindCopySubscribe binds COPY (SUBSCRIBE …) TO STDOUT: the subscription's
// rows (timestamp, diff and the columns, as SUBSCRIBE returns them) as
// COPY data, one message per row, flushed whenever the subscription
// waits for the next tick, so that psql prints changes as they happen.
func (s *session) bindCopySubscribe(cat *catalog.Catalog, st *parser.CopySubscribe) (*boundStmt, error) {
	sub, err := s.subscribeStmt(cat, st.Subscribe)
	if err != nil {
		return nil, err
	}
	f := copyFormat{delim: '\t', null: `\N`}
	switch st.Format {
	case parser.CopyCSV:
		f = copyFormat{csv: true, delim: ',', quote: '"', escape: '"'}
	case parser.CopyBinary:
		f = copyFormat{binary: true}
	}
	colTypes := make([]types.Type, len(sub.cols))
	for i, c := range sub.cols {
		colTypes[i] = c.Type
	}
	return &boundStmt{run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
		res, err := sub.run(ctx, s, params)
		if err != nil {
			return nil, err
		}
		live := res.(*subscribeResult)
		return &copySubscribe{sub: live, f: f, cols: colTypes, cfg: s.info.settings.textConfig()}, nil
	}}, nil
}

// copySubscribe is a subscription read as COPY data.
type copySubscribe struct {
	sub     *subscribeResult
	f       copyFormat
	cols    []types.Type
	cfg     *types.TextConfig
	started bool
	n       int
	buf     []byte
	scratch []byte
}

var (
	_ pgwire.CopyOutResult = (*copySubscribe)(nil)
	_ pgwire.LiveResult    = (*copySubscribe)(nil)
)

func (c *copySubscribe) CopyFormat() (bool, int) { return c.f.binary, len(c.cols) }

// Next is unused: the rows travel as COPY data.
func (c *copySubscribe) Next(context.Context) (types.Row, bool, error) { return nil, false, nil }

func (c *copySubscribe) Ready() bool { return c.sub.Ready() }

func (c *copySubscribe) Tag() string { return "COPY " + strconv.Itoa(c.n) }

func (c *copySubscribe) Close() { c.sub.Close() }

// NextCopyData returns the next change as one row of COPY data; it ends
// when the subscription reaches its UP TO, or with an error when the
// client cancels or the subscription fails.
func (c *copySubscribe) NextCopyData(ctx context.Context) ([]byte, bool, error) {
	row, ok, err := c.sub.Next(ctx)
	if err != nil || !ok {
		return nil, ok, err
	}
	c.buf = c.buf[:0]
	if !c.started && c.f.binary {
		c.buf = append(c.buf, binarySignature...)
		c.buf = append(c.buf, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	c.started = true
	c.buf, c.scratch = c.f.appendRow(c.buf, row, c.cols, c.cfg, c.scratch)
	c.n++
	return c.buf, true, nil
}
