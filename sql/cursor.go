package sql

import (
	"context"
	"strconv"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/types"
)

// cursorOptHold is CURSOR_OPT_HOLD of DeclareCursorStmt.Options: WITH
// HOLD, a cursor that outlives its transaction.
const cursorOptHold = 0x20

// cursor is an open DECLARE CURSOR: its query's rows, computed when it
// was declared (at the transaction's snapshot, as PostgreSQL reads
// them), and how far FETCH has read.
type cursor struct {
	cols []pgwire.Column
	rows []types.Row
	pos  int
	// live is the feed of a cursor over a subscription (DECLARE …
	// CURSOR FOR SUBSCRIBE), whose rows FETCH reads as they arrive.
	live *subscribeFeed
	// txn is the transaction the cursor belongs to; nil WITH HOLD.
	txn *txn
}

// openCursor returns the session's cursor of that name, forgetting it if
// its transaction has ended.
func (s *session) openCursor(name string) (*cursor, error) {
	c := s.cursors[name]
	if c != nil && c.txn != nil && c.txn != s.txn {
		s.closeCursor(name)
		c = nil
	}
	if c == nil {
		return nil, pgerr.New(pgerr.InvalidCursorName, "cursor %q does not exist", name)
	}
	return c, nil
}

// bindDeclareCursor binds DECLARE name CURSOR [WITH HOLD] FOR query.
func (s *session) bindDeclareCursor(cat *catalog.Catalog, raw *rawStatement, dc *pg_query.DeclareCursorStmt, params []types.Type) (*boundStmt, error) {
	if dc.Query.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "DECLARE CURSOR takes a SELECT")
	}
	q, err := s.bindQuery(cat, &rawStatement{node: dc.Query, text: raw.text, offset: raw.offset}, params)
	if err != nil {
		return nil, err
	}
	name, hold := dc.Portalname, dc.Options&cursorOptHold != 0
	return &boundStmt{params: q.params, run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
		if !hold && (s.txn == nil || s.txn.implicit) {
			return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, err := s.openCursor(name); err == nil {
			return nil, pgerr.New(pgerr.DuplicateCursor, "cursor %q already exists", name)
		}
		res, err := q.run(ctx, s, params)
		if err != nil {
			return nil, err
		}
		defer res.Close()
		c := &cursor{cols: q.cols}
		if !hold {
			c.txn = s.txn
		}
		for {
			row, ok, err := res.Next(ctx)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			c.rows = append(c.rows, row)
		}
		if s.cursors == nil {
			s.cursors = map[string]*cursor{}
		}
		s.cursors[name] = c
		return commandResult("DECLARE CURSOR"), nil
	}}, nil
}

// bindFetch binds FETCH and MOVE, forward only: NEXT, FORWARD n, ALL.
// The binding reads the cursor's columns, so it is redone every time. A
// name that is no DECLAREd cursor may be a portal the client bound, as
// SQL cursors and protocol portals share one namespace in PostgreSQL
// (asyncpg's cursors bind a portal and MOVE it forward).
func (s *session) bindFetch(fs *pg_query.FetchStmt) (*boundStmt, error) {
	if fs.Direction != pg_query.FetchDirection_FETCH_FORWARD || fs.HowMany <= 0 {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "only FETCH and MOVE forward by a positive count or ALL are supported: cursors are NO SCROLL")
	}
	n := fs.HowMany // math.MaxInt64 for ALL
	c, err := s.openCursor(fs.Portalname)
	if err != nil {
		return s.bindFetchPortal(fs, n, err)
	}
	b := &boundStmt{rebind: true, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		c, err := s.openCursor(fs.Portalname)
		if err != nil {
			return nil, err
		}
		if c.live != nil {
			if fs.Ismove {
				return nil, pgerr.New(pgerr.FeatureNotSupported, "MOVE is not supported for a subscription's cursor")
			}
			return &fetchResult{feed: c.live, limit: n, timeout: -1}, nil
		}
		end := len(c.rows)
		if int64(end-c.pos) > n {
			end = c.pos + int(n)
		}
		rows := c.rows[c.pos:end]
		c.pos = end
		if fs.Ismove {
			return commandResult("MOVE " + strconv.Itoa(len(rows))), nil
		}
		return &rowsResult{rows: rows, tag: "FETCH " + strconv.Itoa(len(rows))}, nil
	}}
	if !fs.Ismove {
		b.cols = c.cols
	}
	return b, nil
}

// bindFetchPortal binds FETCH or MOVE on a protocol portal; noCursor is
// the error to give when there is no such portal either.
func (s *session) bindFetchPortal(fs *pg_query.FetchStmt, n int64, noCursor error) (*boundStmt, error) {
	if s.portals == nil {
		return nil, noCursor
	}
	cols, _, ok, err := s.portals.ReadPortal(context.Background(), fs.Portalname, 0, nil)
	if err != nil || !ok {
		return nil, noCursor
	}
	b := &boundStmt{rebind: true, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		var rows []types.Row
		var fn func(types.Row)
		if !fs.Ismove {
			fn = func(r types.Row) { rows = append(rows, r.Copy()) }
		}
		_, read, ok, err := s.portals.ReadPortal(ctx, fs.Portalname, n, fn)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			return nil, noCursor
		case fs.Ismove:
			return commandResult("MOVE " + strconv.FormatInt(read, 10)), nil
		}
		return &rowsResult{rows: rows, tag: "FETCH " + strconv.FormatInt(read, 10)}, nil
	}}
	if !fs.Ismove {
		b.cols = cols
	}
	return b, nil
}

// bindClose binds CLOSE name and CLOSE ALL.
func (s *session) bindClose(cp *pg_query.ClosePortalStmt) *boundStmt {
	return &boundStmt{rebind: true, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		if cp.Portalname == "" {
			for name := range s.cursors {
				s.closeCursor(name)
			}
			return commandResult("CLOSE CURSOR"), nil
		}
		if _, err := s.openCursor(cp.Portalname); err != nil {
			return nil, err
		}
		s.closeCursor(cp.Portalname)
		return commandResult("CLOSE CURSOR"), nil
	}}
}

var _ pgwire.CursorSession = (*session)(nil)

// DescribeCursor implements pgwire.CursorSession.
func (s *session) DescribeCursor(name string) ([]pgwire.Column, bool) {
	c, err := s.openCursor(name)
	if err != nil {
		return nil, false
	}
	return c.cols, true
}

// closeCursor forgets a cursor, ending its subscription if it has one.
func (s *session) closeCursor(name string) {
	if c := s.cursors[name]; c != nil && c.live != nil {
		c.live.close()
	}
	delete(s.cursors, name)
}

// closeTxnCursors closes the cursors of a transaction that ends.
func (s *session) closeTxnCursors(t *txn) {
	for name, c := range s.cursors {
		if t != nil && c.txn == t {
			s.closeCursor(name)
		}
	}
}
