package engine

import (
	"context"
	"math"
	"sync"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// Subscription is a change feed: a dataflow maintained like a
// materialized view, except that each tick's changes are queued for a
// consumer (a client's SUBSCRIBE) instead of kept. The coordinator pushes
// a tick once it is durable; the consumer pops ticks in timestamp order.
type Subscription struct {
	flow    *flow
	collect *dataflow.Collector

	mu     sync.Mutex
	queue  []Tick
	err    error
	notify chan struct{}
}

// Tick is one tick's changes to a subscription's query: the rows
// with their weights, consolidated, at the tick's timestamp. A tick that
// touched the query's inputs without changing its result has no rows.
type Tick struct {
	TS    uint64
	Delta dataflow.Batch
}

// nextSubscriptionID orders subscription flows after every catalog object in
// the coordinator's work queue (nothing reads a subscription).
var nextSubscriptionID uint64 = math.MaxUint64

// push queues one tick's changes. The first error a tick carries ends the
// subscription: the consumer receives it after that tick's rows.
func (s *Subscription) push(ts uint64, delta dataflow.Batch, errs []dataflow.ErrorUpdate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return
	}
	s.queue = append(s.queue, Tick{TS: ts, Delta: delta})
	if len(errs) > 0 {
		s.err = errs[0].Err
	}
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// Ready reports whether next would return at once.
func (s *Subscription) Ready() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue) > 0 || s.err != nil
}

// Next returns the ticks queued since the last call, in timestamp order,
// waiting for one when none is; after them, the error that ended the
// subscription.
func (s *Subscription) Next(ctx context.Context) ([]Tick, error) {
	for {
		s.mu.Lock()
		ticks, err := s.queue, s.err
		s.queue = nil
		s.mu.Unlock()
		if len(ticks) > 0 {
			return ticks, nil
		}
		if err != nil {
			return nil, err
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			return nil, pgerr.Canceled()
		}
	}
}

// Subscribe builds and hydrates a change feed of plan's result and starts
// feeding it, between ticks. With snapshot, the first tick the feed
// returns is the result at the current timestamp, as insertions; without,
// the feed starts with the next tick's changes.
func (e *Engine) Subscribe(ctx context.Context, plan planner.Node, snapshot bool) (*Subscription, error) {
	var sub *Subscription
	err := e.call(ctx, func(e *Engine) error {
		obj := &catalog.Object{ID: nextSubscriptionID, Kind: catalog.KindMaterializedView, Name: "subscribe"}
		nextSubscriptionID--
		f := &flow{obj: obj, graph: dataflow.NewGraph(), inputs: map[uint64]*dataflow.Input{}}
		lc := &planner.LowerContext{Graph: f.graph, Eval: &scalar.EvalContext{Text: types.DefaultTextConfig()}, Get: f.input, Watermark: e.watermarkOf}
		root, err := planner.Lower(lc, planner.Physical(plan, planner.Maintained))
		if err != nil {
			return err
		}
		s := &Subscription{flow: f, collect: f.graph.Collect(root), notify: make(chan struct{}, 1)}
		f.sub = s
		if err := e.hydrate(ctx, f); err != nil {
			return err
		}
		if snapshot {
			s.push(e.ts, s.collect.Delta(), s.collect.Errors())
		}
		for id := range f.inputs {
			e.readers[id] = append(e.readers[id], f)
		}
		e.addTimed(f)
		sub = s
		return nil
	})
	return sub, err
}

// Unsubscribe stops feeding a subscription.
func (e *Engine) Unsubscribe(ctx context.Context, sub *Subscription) error {
	return e.call(ctx, func(e *Engine) error {
		e.dropTimed(sub.flow)
		for id := range sub.flow.inputs {
			rs := e.readers[id]
			for i, r := range rs {
				if r == sub.flow {
					e.readers[id] = append(rs[:i:i], rs[i+1:]...)
					break
				}
			}
		}
		return nil
	})
}

// call runs fn on the coordinator between ticks.
func (e *Engine) call(ctx context.Context, fn func(e *Engine) error) error {
	return e.submit(ctx, &coordReq{call: fn})
}

// subPush is one subscription's changes of a tick, pushed to its client
// once the tick is durable.
type subPush struct {
	sub   *Subscription
	delta dataflow.Batch
	errs  []dataflow.ErrorUpdate
}
