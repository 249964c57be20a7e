package sql

import (
	"context"
	"errors"
	"io"
	"strconv"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// subscribeSpec is a bound SUBSCRIBE: the plan to follow, where its feed
// starts and ends, and the shape of its rows.
type subscribeSpec struct {
	plan planner.Node
	opts engine.FeedOptions
	cols []pgwire.Column
	out  subscribeShape
}

// bindSubscribe binds SUBSCRIBE [TO] obj | (query) with its envelope,
// options, AS OF and UP TO.
func (s *session) bindSubscribe(cat *catalog.Catalog, st *parser.Subscribe) (*subscribeSpec, error) {
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
	bq, deps, err := bindViewQuery(cat, raws[0].node.GetSelectStmt(), vb)
	if err != nil {
		return nil, err
	}
	s.requireSelect(cat, deps)
	spec := &subscribeSpec{opts: engine.FeedOptions{
		Snapshot:     st.Snapshot == nil || st.Snapshot.Value,
		Dependencies: deps,
	}}
	root := queryNode(bq.q)
	if st.AsOf != nil {
		if st.AsOf.Value < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "AS OF must be a timestamp in milliseconds, not %d", st.AsOf.Value)
		}
		spec.opts.AsOf, spec.opts.HasAsOf, spec.opts.AtLeast = uint64(st.AsOf.Value), true, st.AsOfAtLeast
		// A feed that starts in the past replays the retained history
		// of stored collections: views are computed from their
		// definitions.
		root = inlineViews(cat, root)
	}
	if st.UpTo != nil {
		if st.UpTo.Value < 0 {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "UP TO must be a timestamp in milliseconds, not %d", st.UpTo.Value)
		}
		spec.opts.UpTo = uint64(st.UpTo.Value)
		if spec.opts.UpTo == 0 {
			spec.opts.UpTo = 1 // UP TO 0 ends before every time the engine has
		}
	}
	if spec.plan, err = planner.Optimize(root); err != nil {
		return nil, err
	}
	spec.plan = pinPlan(spec.plan, vb)
	spec.out, spec.cols, err = newSubscribeShape(bq.columns(), st.Envelope, st.Progress != nil && st.Progress.Value)
	if err != nil {
		return nil, err
	}
	return spec, nil
}

// inlineViews replaces each read of a materialized view by the view's
// plan, recursively, so that the plan reads only stored collections.
func inlineViews(cat *catalog.Catalog, n planner.Node) planner.Node {
	return planner.RewriteNodes(n, func(n planner.Node) planner.Node {
		g, ok := n.(*planner.Get)
		if !ok || g.Spans != nil || g.WithKey {
			return n
		}
		o, ok := cat.ByID(uint64(g.ID))
		if !ok || o.Kind != catalog.KindMaterializedView || o.Plan == nil || len(o.Plan.Columns()) != len(g.Cols) {
			return n
		}
		return inlineViews(cat, o.Plan)
	})
}

// openFeed starts the spec's subscription on the engine.
func (s *session) openFeed(ctx context.Context, spec *subscribeSpec) (*subscribeFeed, error) {
	sub, err := s.e.eng.Subscribe(ctx, spec.plan, spec.opts)
	if err != nil {
		return nil, err
	}
	return &subscribeFeed{e: s.e.eng, sub: sub, out: spec.out}, nil
}

// subscribeStmt is the bound statement of a SUBSCRIBE run on its own.
func (s *session) subscribeStmt(cat *catalog.Catalog, st *parser.Subscribe) (*boundStmt, error) {
	spec, err := s.bindSubscribe(cat, st)
	if err != nil {
		return nil, err
	}
	return &boundStmt{cols: spec.cols, run: func(ctx context.Context, s *session, _ []types.Datum) (pgwire.Result, error) {
		if s.txn != nil && !s.txn.implicit {
			return nil, pgerr.New(pgerr.ActiveSQLTransaction, "SUBSCRIBE cannot run inside a transaction block").
				WithHint("Use DECLARE … CURSOR FOR SUBSCRIBE and FETCH in a transaction block.")
		}
		feed, err := s.openFeed(ctx, spec)
		if err != nil {
			return nil, err
		}
		return &subscribeResult{feed: feed}, nil
	}}, nil
}

// subscribeFeed turns a subscription's ticks into result rows.
type subscribeFeed struct {
	e   *engine.Engine
	sub *engine.Subscription
	out subscribeShape
	buf []types.Row
	// enc, when set, renders the rows as COPY data into data instead of
	// buf (copySubscribe).
	enc  *copyEncoder
	data [][]byte
	// done is set once the feed ended at its UP TO; err once it failed.
	done bool
	err  error
}

// ready reports whether next would return without waiting. It takes
// the ticks already queued, which may hold no rows (progress without
// PROGRESS), so that it never promises a row that is not there.
func (f *subscribeFeed) ready() bool {
	for len(f.buf) == 0 && len(f.data) == 0 && !f.done && f.err == nil && f.sub.Ready() {
		f.err = f.fill(context.Background())
	}
	return len(f.buf) > 0 || len(f.data) > 0 || f.done || f.err != nil
}

// fill renders the ticks queued next, waiting for one.
func (f *subscribeFeed) fill(ctx context.Context) error {
	ticks, err := f.sub.Next(ctx)
	if errors.Is(err, io.EOF) {
		f.done = true
		return nil
	}
	if err != nil {
		return err
	}
	for _, t := range ticks {
		if f.enc != nil {
			f.data = f.enc.appendTick(f.data, &f.out, t)
		} else {
			f.buf = f.out.appendTick(f.buf, t)
		}
	}
	return nil
}

// next returns the next row, waiting for the next tick when there is
// none; ok is false once the feed ended at its UP TO.
func (f *subscribeFeed) next(ctx context.Context) (types.Row, bool, error) {
	return popFeed(ctx, f, &f.buf)
}

// nextData is next for a feed that renders COPY data (enc set).
func (f *subscribeFeed) nextData(ctx context.Context) ([]byte, bool, error) {
	return popFeed(ctx, f, &f.data)
}

// popFeed takes the first item of one of f's queues, filling it from
// the next tick while it is empty.
func popFeed[T any](ctx context.Context, f *subscribeFeed, q *[]T) (T, bool, error) {
	var zero T
	for len(*q) == 0 {
		switch {
		case f.err != nil:
			return zero, false, f.err
		case f.done:
			return zero, false, nil
		}
		if err := f.fill(ctx); err != nil {
			return zero, false, err
		}
	}
	v := (*q)[0]
	(*q)[0] = zero
	*q = (*q)[1:]
	return v, true, nil
}

// close stops the feed. It fails only when the engine has stopped, which
// ends every feed with it.
func (f *subscribeFeed) close() { _ = f.e.Unsubscribe(context.Background(), f.sub) }

// subscribeResult streams a subscription to the client (pgwire.LiveResult)
// until the client cancels it or its UP TO ends it.
type subscribeResult struct {
	feed *subscribeFeed
	n    int
}

var _ pgwire.LiveResult = (*subscribeResult)(nil)

func (r *subscribeResult) Ready() bool { return r.feed.ready() }

func (r *subscribeResult) Next(ctx context.Context) (types.Row, bool, error) {
	row, ok, err := r.feed.next(ctx)
	if ok {
		r.n++
	}
	return row, ok, err
}

func (r *subscribeResult) Tag() string { return "SUBSCRIBE " + strconv.Itoa(r.n) }

func (r *subscribeResult) Close() { r.feed.close() }
