package sql

import (
	"context"
	"math"
	"strconv"
	"sync"

	"github.com/cockroachdb/apd/v3"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/parser"
	"github.com/streamdb/streamdb/types"
)

// subscription is a client's SUBSCRIBE: a dataflow maintained like a
// materialized view, except that each tick's changes are queued for the
// client instead of kept. The coordinator pushes; the session pops.
type subscription struct {
	flow    *flow
	collect *dataflow.Collector
	// progress asks for a progress row after every tick that touched the
	// subscription's inputs.
	progress bool
	width    int

	mu     sync.Mutex
	queue  []types.Row
	err    error
	notify chan struct{}
}

// nextSubscriptionID orders subscription flows after every catalog object in
// the coordinator's work queue (nothing reads a subscription).
var nextSubscriptionID uint64 = math.MaxUint64

// push queues one tick's changes as output rows.
func (s *subscription) push(ts uint64, delta dataflow.Batch, errs []dataflow.ErrorUpdate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	if len(errs) > 0 {
		s.err = errs[0].Err
	}
	tsd := types.NewNumeric(apd.New(int64(ts), 0))
	for _, u := range delta {
		row := make(types.Row, 0, s.width)
		row = append(row, tsd)
		if s.progress {
			row = append(row, types.DFalse)
		}
		row = append(row, types.NewInt8(u.Diff))
		s.queue = append(s.queue, append(row, u.Row...))
	}
	if s.progress {
		row := make(types.Row, s.width)
		row[0], row[1] = tsd, types.DTrue
		s.queue = append(s.queue, row)
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// subscribe builds and hydrates a subscription's dataflow on the
// coordinator and starts feeding it.
func (c *coordinator) subscribe(ctx context.Context, plan planner.Node, snapshot, progress bool, width int) (*subscription, error) {
	obj := &catalog.Object{ID: nextSubscriptionID, Kind: catalog.KindMaterializedView, Name: "subscribe"}
	nextSubscriptionID--
	f := &flow{obj: obj, graph: dataflow.NewGraph(), inputs: map[uint64]*dataflow.Input{}}
	lc := &planner.LowerContext{Graph: f.graph, Eval: &scalar.EvalContext{Text: types.DefaultTextConfig()}, Get: f.input}
	root, err := planner.Lower(lc, plan)
	if err != nil {
		return nil, err
	}
	sub := &subscription{flow: f, collect: f.graph.Collect(root), progress: progress, width: width, notify: make(chan struct{}, 1)}
	f.sub = sub
	if err := c.hydrate(ctx, f); err != nil {
		return nil, err
	}
	if snapshot {
		sub.push(c.ts, sub.collect.Delta(), sub.collect.Errors())
	}
	for id := range f.inputs {
		c.readers[id] = append(c.readers[id], f)
	}
	return sub, nil
}

// unsubscribe stops feeding a subscription.
func (c *coordinator) unsubscribe(sub *subscription) {
	for id := range sub.flow.inputs {
		rs := c.readers[id]
		for i, r := range rs {
			if r == sub.flow {
				c.readers[id] = append(rs[:i:i], rs[i+1:]...)
				break
			}
		}
	}
}

// call runs fn on the coordinator between ticks.
func (c *coordinator) call(ctx context.Context, fn func(c *coordinator) error) error {
	return c.submit(ctx, &coordReq{call: fn})
}

// subscribeResult streams a subscription to the client (pgwire.LiveResult).
type subscribeResult struct {
	s   *session
	sub *subscription
	buf []types.Row
	n   int
}

var _ pgwire.LiveResult = (*subscribeResult)(nil)

func (r *subscribeResult) Ready() bool {
	if len(r.buf) > 0 {
		return true
	}
	r.sub.mu.Lock()
	defer r.sub.mu.Unlock()
	return len(r.sub.queue) > 0 || r.sub.err != nil
}

// Next returns the next change, waiting for the next tick when there is
// none; the subscription ends when the client cancels the statement.
func (r *subscribeResult) Next(ctx context.Context) (types.Row, bool, error) {
	for len(r.buf) == 0 {
		r.sub.mu.Lock()
		r.buf, r.sub.queue = r.sub.queue, nil
		err := r.sub.err
		r.sub.mu.Unlock()
		if len(r.buf) > 0 {
			break
		}
		if err != nil {
			return nil, false, err
		}
		select {
		case <-r.sub.notify:
		case <-ctx.Done():
			return nil, false, pgerr.Canceled()
		}
	}
	row := r.buf[0]
	r.buf = r.buf[1:]
	r.n++
	return row, true, nil
}

func (r *subscribeResult) Tag() string { return "SUBSCRIBE " + strconv.Itoa(r.n) }

func (r *subscribeResult) Close() {
	sub := r.sub
	_ = r.s.e.c.call(context.Background(), func(c *coordinator) error {
		c.unsubscribe(sub)
		return nil
	})
}

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
	bq, _, err := bindViewQuery(cat, raws[0].node.GetSelectStmt())
	if err != nil {
		return nil, err
	}
	plan, err := planner.Optimize(queryNode(bq.q))
	if err != nil {
		return nil, err
	}
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
		var sub *subscription
		err := s.e.c.call(ctx, func(c *coordinator) error {
			var err error
			sub, err = c.subscribe(ctx, plan, snapshot, progress, width)
			return err
		})
		if err != nil {
			return nil, err
		}
		return &subscribeResult{s: s, sub: sub}, nil
	}}, nil
}
