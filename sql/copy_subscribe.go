package sql

import (
	"context"
	"fmt"
	"strconv"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
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
		live.feed.enc = newCopyEncoder(f, colTypes, s.info.settings.textConfig())
		return &copySubscribe{sub: live, binary: f.binary, width: len(colTypes)}, nil
	}}, nil
}

// copySubscribe is a subscription read as COPY data.
type copySubscribe struct {
	sub     *subscribeResult
	binary  bool
	width   int
	started bool
	n       int
	buf     []byte
}

var (
	_ pgwire.CopyOutResult = (*copySubscribe)(nil)
	_ pgwire.LiveResult    = (*copySubscribe)(nil)
)

func (c *copySubscribe) CopyFormat() (bool, int) { return c.binary, c.width }

// Next is unused: the rows travel as COPY data.
func (c *copySubscribe) Next(context.Context) (types.Row, bool, error) { return nil, false, nil }

func (c *copySubscribe) Ready() bool { return c.sub.Ready() }

func (c *copySubscribe) Tag() string { return "COPY " + strconv.Itoa(c.n) }

func (c *copySubscribe) Close() { c.sub.Close() }

// NextCopyData returns the next change as one row of COPY data; it ends
// when the subscription reaches its UP TO, or with an error when the
// client cancels or the subscription fails.
func (c *copySubscribe) NextCopyData(ctx context.Context) ([]byte, bool, error) {
	data, ok, err := c.sub.feed.nextData(ctx)
	if err != nil || !ok {
		return nil, ok, err
	}
	c.n++
	if !c.started && c.binary {
		c.buf = append(c.buf[:0], binarySignature...)
		c.buf = append(c.buf, 0, 0, 0, 0, 0, 0, 0, 0)
		data = append(c.buf, data...)
	}
	c.started = true
	return data, true, nil
}

// copyEncoder renders a subscription's ticks as COPY data, one []byte
// per row. Subscriptions of a whole table or view share each tick's
// changes (engine.Tick.Shared); those that render them alike (the same
// shape, format and text settings) share the encoded rows too: the
// first to read a tick encodes it for the others, who only copy the
// bytes to their clients. A hundred subscribers of a view then cost one
// encoding of each change, not a hundred.
type copyEncoder struct {
	f    copyFormat
	cols []types.Type
	cfg  *types.TextConfig
	// share keys the encoding among the tick's subscribers; "" when it
	// depends on the session beyond what the key says.
	share   string
	rows    []types.Row
	scratch []byte
}

func newCopyEncoder(f copyFormat, cols []types.Type, cfg *types.TextConfig) *copyEncoder {
	c := &copyEncoder{f: f, cols: cols, cfg: cfg}
	for _, t := range cols {
		if namesObjects(t.Family) || t.Family == types.Array && namesObjects(t.Elem) {
			return c // its text depends on the session's catalog
		}
	}
	loc := ""
	if cfg.Location != nil {
		loc = cfg.Location.String()
	}
	c.share = fmt.Sprintf("copy %+v %v %q %d %d %d %d %t", f, cols, loc, cfg.DateStyle, cfg.DateOrder, cfg.IntervalStyle, cfg.ExtraFloatDigits, cfg.ByteaEscape)
	return c
}

// namesObjects reports whether a type's values print as object names.
func namesObjects(f types.Family) bool {
	switch f {
	case types.RegClass, types.RegType, types.RegProc, types.RegNamespace:
		return true
	}
	return false
}

// appendTick appends the COPY data of a tick's rows, laid out by sh.
func (c *copyEncoder) appendTick(data [][]byte, sh *subscribeShape, t engine.Tick) [][]byte {
	if t.Shared == nil || t.Progress || c.share == "" {
		return c.encode(data, sh, t)
	}
	key := c.share + " " + sh.signature()
	rows := t.Shared.Load(key, func() any { return c.encode(nil, sh, t) }).([][]byte)
	return append(data, rows...)
}

// encode appends the COPY data of a tick's rows, each its own slice of
// one buffer (which nothing writes to afterwards).
func (c *copyEncoder) encode(data [][]byte, sh *subscribeShape, t engine.Tick) [][]byte {
	c.rows = sh.appendTick(c.rows[:0], t)
	var buf []byte
	for _, r := range c.rows {
		start := len(buf)
		buf, c.scratch = c.f.appendRow(buf, r, c.cols, c.cfg, c.scratch)
		data = append(data, buf[start:len(buf):len(buf)])
	}
	clear(c.rows)
	return data
}
