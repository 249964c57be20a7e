package sql

import (
	"context"
	"strconv"

	"github.com/cockroachdb/apd/v3"
	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// subscribeResult streams a subscription to the client (pgwire.LiveResult)
// in Materialize's shape: mz_timestamp, mz_progressed (with PROGRESS),
// mz_diff, then the columns; with PROGRESS, a progress row closes each
// tick.
type subscribeResult struct {
	s        *session
	sub      *engine.Subscription
	progress bool
	width    int
	buf      []types.Row
	n        int
}

var _ pgwire.LiveResult = (*subscribeResult)(nil)

func (r *subscribeResult) Ready() bool { return len(r.buf) > 0 || r.sub.Ready() }

// Next returns the next change, waiting for the next tick when there is
// none; the subscription ends when the client cancels the statement.
func (r *subscribeResult) Next(ctx context.Context) (types.Row, bool, error) {
	for len(r.buf) == 0 {
		ticks, err := r.sub.Next(ctx)
		if err != nil {
			return nil, false, err
		}
		for _, t := range ticks {
			r.appendTick(t)
		}
	}
	row := r.buf[0]
	r.buf = r.buf[1:]
	r.n++
	return row, true, nil
}

// appendTick adds one tick's output rows to the buffer.
func (r *subscribeResult) appendTick(t engine.Tick) {
	tsd := types.NewNumeric(apd.New(int64(t.TS), 0))
	for _, u := range t.Delta {
		row := make(types.Row, 0, r.width)
		row = append(row, tsd)
		if r.progress {
			row = append(row, types.DFalse)
		}
		row = append(row, types.NewInt8(u.Diff))
		r.buf = append(r.buf, append(row, u.Row...))
	}
	if r.progress {
		row := make(types.Row, r.width)
		row[0], row[1] = tsd, types.DTrue
		r.buf = append(r.buf, row)
	}
}

func (r *subscribeResult) Tag() string { return "SUBSCRIBE " + strconv.Itoa(r.n) }

// Close stops the feed. It fails only when the engine has stopped, which
// ends every feed with it.
func (r *subscribeResult) Close() { _ = r.s.e.eng.Unsubscribe(context.Background(), r.sub) }

// bindSubscribe binds SUBSCRIBE TO obj | (query).
func (s *session) bindSubscribe(cat *catalog.Catalog, st *parser.Subscribe) (*boundStmt, error) {
	if st.Envelope != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SUBSCRIBE … ENVELOPE is not supported yet")
	}
	if st.AsOf != nil || st.UpTo != nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SUBSCRIBE AS OF and UP TO are not supported yet")
	}
	text := ""
	if st.Query != nil {
		text = st.Query.Text
	} else {
		text = "SELECT * FROM " + st.Relation.String()
	}
	raws, err := parseQuery(text)
	if err != nil {
		return nil, err
	}
	if len(raws) != 1 || raws[0].node == nil || raws[0].node.GetSelectStmt() == nil {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "SUBSCRIBE takes a relation or a SELECT")
	}
	vb := &viewBinding{settings: s.info.settings}
	bq, _, err := bindViewQuery(cat, raws[0].node.GetSelectStmt(), vb)
	if err != nil {
		return nil, err
	}
	plan, err := planner.Optimize(queryNode(bq.q))
	if err != nil {
		return nil, err
	}
	plan = pinPlan(plan, vb)
	snapshot := st.Snapshot == nil || st.Snapshot.Value
	progress := st.Progress != nil && st.Progress.Value
	cols := []pgwire.Column{{Name: "mz_timestamp", Type: types.TypeNumeric}}
	if progress {
		cols = append(cols, pgwire.Column{Name: "mz_progressed", Type: types.TypeBool})
	}
	cols = append(cols, pgwire.Column{Name: "mz_diff", Type: types.TypeInt8})
	cols = append(cols, resultColumns(bq.columns())...)
	width := len(cols)
	return &boundStmt{cols: cols, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		if s.txn != nil && !s.txn.implicit {
			return nil, pgerr.New(pgerr.ActiveSQLTransaction, "SUBSCRIBE cannot run inside a transaction block")
		}
		sub, err := s.e.eng.Subscribe(ctx, plan, snapshot)
		if err != nil {
			return nil, err
		}
		return &subscribeResult{s: s, sub: sub, progress: progress, width: width}, nil
	}}, nil
}
