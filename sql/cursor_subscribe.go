package sql

import (
	"context"
	"math"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// bindDeclareSubscribe binds DECLARE name CURSOR FOR SUBSCRIBE …: the
// subscription starts when the cursor is declared, and FETCH reads its
// rows as they arrive, until the transaction ends.
func (s *session) bindDeclareSubscribe(cat *catalog.Catalog, st *parser.DeclareSubscribe) (*boundStmt, error) {
	spec, err := s.bindSubscribe(cat, st.Subscribe)
	if err != nil {
		return nil, err
	}
	name := st.Name.Value
	return &boundStmt{run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		if s.txn == nil || s.txn.implicit {
			return nil, pgerr.New(pgerr.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
		}
		if _, err := s.openCursor(name); err == nil {
			return nil, pgerr.New(pgerr.DuplicateCursor, "cursor %q already exists", name)
		}
		feed, err := s.openFeed(ctx, spec)
		if err != nil {
			return nil, err
		}
		if s.cursors == nil {
			s.cursors = map[string]*cursor{}
		}
		s.cursors[name] = &cursor{cols: spec.cols, live: feed, txn: s.txn}
		return commandResult("DECLARE CURSOR"), nil
	}}, nil
}

// bindFetchWith binds FETCH … WITH (TIMEOUT = 'interval'), which only a
// subscription's cursor takes.
func (s *session) bindFetchWith(st *parser.Fetch) (*boundStmt, error) {
	c, err := s.openCursor(st.Cursor.Value)
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(-1)
	if st.Timeout != nil {
		d, err := types.ParseText(st.Timeout.Value, types.TypeInterval, nil)
		if err != nil {
			return nil, err
		}
		iv := d.Interval()
		us := iv.Micros + int64(iv.Days)*86_400e6 + int64(iv.Months)*30*86_400e6
		if us < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "timeout must not be negative")
		}
		timeout = time.Duration(min(us, math.MaxInt64/1000)) * time.Microsecond
	}
	limit := st.Count
	if limit < 0 {
		limit = math.MaxInt64
	}
	name := st.Cursor.Value
	return &boundStmt{cols: c.cols, rebind: true, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		c, err := s.openCursor(name)
		if err != nil {
			return nil, err
		}
		if c.live == nil {
			return nil, pgerr.New(pgerr.FeatureNotSupported, "FETCH … WITH (TIMEOUT) reads only a subscription's cursor")
		}
		return &fetchResult{feed: c.live, limit: limit, timeout: timeout}, nil
	}}, nil
}

// fetchResult is FETCH from a subscription's cursor, as Materialize
// serves it: it waits for the first row, at most the timeout (forever
// without one; zero rows when it passes), and then returns the rows
// that are ready at once, up to the count.
type fetchResult struct {
	feed  *subscribeFeed
	limit int64
	// timeout bounds the wait for the first row; negative waits for it.
	timeout time.Duration
	n       int64
}

var _ pgwire.LiveResult = (*fetchResult)(nil)

// Ready reports whether Next returns without waiting: after the first
// row it always does.
func (r *fetchResult) Ready() bool { return r.n > 0 || r.feed.ready() }

func (r *fetchResult) Next(ctx context.Context) (types.Row, bool, error) {
	if r.n >= r.limit {
		return nil, false, nil
	}
	if r.n > 0 && !r.feed.ready() {
		return nil, false, nil
	}
	wait := ctx
	if r.n == 0 && r.timeout >= 0 {
		if r.timeout == 0 && !r.feed.ready() {
			return nil, false, nil
		}
		var cancel context.CancelFunc
		wait, cancel = context.WithTimeout(ctx, r.timeout)
		defer cancel()
	}
	row, ok, err := r.feed.next(wait)
	if err != nil && ctx.Err() == nil && wait.Err() != nil {
		return nil, false, nil // the timeout passed
	}
	if ok {
		r.n++
	}
	return row, ok, err
}

func (r *fetchResult) Tag() string { return "FETCH " + strconv.FormatInt(r.n, 10) }

// Close leaves the cursor open: the next FETCH goes on from here.
func (r *fetchResult) Close() {}
