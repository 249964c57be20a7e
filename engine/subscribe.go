package engine

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// nextSubscriptionID orders subscription flows after every catalog object in
// the coordinator's work queue (nothing reads a subscription).
var nextSubscriptionID uint64 = math.MaxUint64

// Subscribe builds and hydrates a change feed of plan's result and starts
// feeding it, between ticks; see Subscription for what it delivers and
// FeedOptions for where it starts and ends. A feed that starts in the
// past reads only stored collections: the caller inlines views.
func (e *Engine) Subscribe(ctx context.Context, plan planner.Node, opts FeedOptions) (*Subscription, error) {
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = e.feedBufferBytes
	}
	var sub *Subscription
	err := e.call(ctx, func(e *Engine) error {
		obj := &catalog.Object{ID: nextSubscriptionID, Kind: catalog.KindMaterializedView, Name: "subscribe"}
		nextSubscriptionID--
		f := &flow{obj: obj, graph: dataflow.NewGraph(), inputs: map[uint64]*dataflow.Input{}}
		lc := &planner.LowerContext{Graph: f.graph, Eval: &scalar.EvalContext{Text: types.DefaultTextConfig()}, Get: f.input}
		root, err := planner.Lower(lc, planner.Physical(plan, planner.Maintained))
		if err != nil {
			return err
		}
		s := &Subscription{flow: f, collect: f.graph.Collect(root), opts: opts, notify: make(chan struct{}, 1)}
		f.sub = s
		if g := wholeObject(plan); g != nil && e.directSource(uint64(g.ID)) {
			s.direct = uint64(g.ID)
		}
		asOf, err := e.startTime(f, opts)
		if err != nil {
			return err
		}
		s.asOf = asOf
		if asOf < e.ts {
			err = e.replay(ctx, f, s)
		} else {
			err = e.hydrate(ctx, f)
			if err == nil && asOf > e.ts {
				s.waiting = true
				s.snapshot = slices.Clone(s.collect.Delta())
			} else if err == nil {
				s.start(s.collect.Delta(), s.collect.Errors())
			}
		}
		if err != nil {
			return err
		}
		sub = s
		if !s.done {
			e.addSubscription(s)
		}
		return nil
	})
	return sub, err
}

// startTime settles a feed's AS OF against the history of its inputs.
func (e *Engine) startTime(f *flow, opts FeedOptions) (uint64, error) {
	if !opts.HasAsOf {
		if opts.UpTo != 0 && opts.UpTo < e.ts {
			return 0, pgerr.New(pgerr.InvalidParameterValue, "UP TO %d is before the subscription's AS OF %d", opts.UpTo, e.ts)
		}
		return e.ts, nil
	}
	asOf := opts.AsOf
	if asOf < e.ts {
		since, oldest := uint64(0), ""
		for id := range f.inputs {
			s := e.hist.sinceOf(id)
			if _, stored := e.tables[id]; !stored {
				// A view's history is not retained; the caller inlines
				// views into a feed that starts in the past.
				s = e.ts
			}
			if s >= since {
				since, oldest = s, e.objectName(id)
			}
		}
		switch {
		case asOf >= since:
		case opts.AtLeast:
			asOf = since
		default:
			return 0, pgerr.New(pgerr.InvalidParameterValue, "AS OF %d is before the retained history of %q, which begins after %d", asOf, oldest, since).
				WithHint("Use AS OF AT LEAST %d, or a later time; SHOW OBJECTS lists how far back each object's history goes (history_since).", since)
		}
	}
	if opts.UpTo != 0 && opts.UpTo < asOf {
		return 0, pgerr.New(pgerr.InvalidParameterValue, "UP TO %d is before the subscription's AS OF %d", opts.UpTo, asOf)
	}
	return asOf, nil
}

func (e *Engine) objectName(id uint64) string {
	if o, ok := e.cat.ByID(id); ok {
		return o.Name
	}
	return fmt.Sprint(id)
}

// replay starts a feed in the past: it feeds the flow its inputs as they
// were at the feed's AS OF (today's contents less the retained changes
// since), pushes the snapshot, and then each retained tick since, in
// order, as the live ticks were pushed.
func (e *Engine) replay(ctx context.Context, f *flow, s *Subscription) error {
	ticks := e.hist.after(s.asOf)
	for id, in := range f.inputs {
		b, err := e.contentsAt(id, ticks)
		if err != nil {
			return err
		}
		in.Push(b)
	}
	if err := f.graph.Step(ctx); err != nil {
		return err
	}
	if s.start(s.collect.Delta(), s.collect.Errors()) {
		return nil
	}
	for _, ht := range ticks {
		changed := false
		for id, in := range f.inputs {
			if d, ok := ht.deltas[id]; ok {
				in.Push(d)
				changed = true
			}
			if ids, ok := ht.appended[id]; ok {
				b, err := e.coldRange(id, ids[0], ids[1])
				if err != nil {
					return err
				}
				in.Push(b)
				changed = true
			}
		}
		if !changed {
			continue
		}
		if err := f.graph.Step(ctx); err != nil {
			return err
		}
		if s.tick(ht.ts, slices.Clone(s.collect.Delta()), s.collect.Errors(), nil) {
			return nil
		}
	}
	s.heartbeat(e.ts)
	return nil
}

// contentsAt returns a stored collection's rows as they were before the
// retained ticks given: a cold relation's rows below the ids those ticks
// appended, another's current rows less the ticks' changes.
func (e *Engine) contentsAt(id uint64, after []histTick) (dataflow.Batch, error) {
	t, ok := e.tables[id]
	if !ok {
		return nil, pgerr.New(pgerr.FeatureNotSupported, "a subscription AS OF a past time reads only tables, sources and the views over them")
	}
	if t.store != nil {
		end := t.nextRowID
		for _, ht := range after {
			if ids, ok := ht.appended[id]; ok {
				end = ids[0]
				break
			}
		}
		return (&TableSnap{obj: t.obj, store: t.store, end: end}).batch()
	}
	b, err := t.snapshot().batch()
	if err != nil {
		return nil, err
	}
	undone := false
	for _, ht := range after {
		for _, u := range ht.deltas[id] {
			b = append(b, dataflow.Update{Row: u.Row, Diff: -u.Diff})
			undone = true
		}
	}
	if undone {
		b = b.Consolidate()
	}
	return b, nil
}

// coldRange reads the rows a cold relation appended with ids in
// [from, to), as insertions.
func (e *Engine) coldRange(id uint64, from, to int64) (dataflow.Batch, error) {
	t := e.tables[id]
	b := make(dataflow.Batch, 0, to-from)
	err := (&TableSnap{obj: t.obj, store: t.store, end: to}).ScanRange(rowIDKey(from), "", nil, func(_ string, row types.Row) bool {
		b = append(b, dataflow.Update{Row: row, Diff: 1})
		return true
	})
	return b, err
}

// wholeObject returns the read of a plan that reads one object whole
// (a Get, or a projection of its columns as they are), else nil.
func wholeObject(plan planner.Node) *planner.Get {
	if p, ok := plan.(*planner.Project); ok {
		if len(p.Exprs) != len(p.Input.Columns()) {
			return nil
		}
		for i, x := range p.Exprs {
			if c, ok := x.(*scalar.ColRef); !ok || c.Idx != i {
				return nil
			}
		}
		plan = p.Input
	}
	g, ok := plan.(*planner.Get)
	if !ok || g.Spans != nil || g.WithKey || g.Index != 0 {
		return nil
	}
	return g
}

// directSource reports whether a subscription that reads object id
// whole can take the object's own changes instead of a dataflow of its
// own: a table's, or a materialized view's (see Subscription.direct).
func (e *Engine) directSource(id uint64) bool {
	if _, ok := e.tables[id]; ok {
		return true
	}
	f := e.flowByID(id)
	return f != nil && f.out != nil
}

// addSubscription starts feeding a subscription the ticks of its inputs.
func (e *Engine) addSubscription(s *Subscription) {
	e.subs[s] = true
	if s.direct != 0 {
		e.directSubs[s.direct] = append(e.directSubs[s.direct], s)
		return
	}
	for id := range s.flow.inputs {
		e.readers[id] = append(e.readers[id], s.flow)
	}
}

// removeSubscription stops feeding a subscription.
func (e *Engine) removeSubscription(s *Subscription) {
	if !e.subs[s] {
		return
	}
	delete(e.subs, s)
	if s.direct != 0 {
		ds := e.directSubs[s.direct]
		if i := slices.Index(ds, s); i >= 0 {
			e.directSubs[s.direct] = slices.Delete(ds, i, i+1)
		}
		if len(e.directSubs[s.direct]) == 0 {
			delete(e.directSubs, s.direct)
		}
		return
	}
	for id := range s.flow.inputs {
		rs := e.readers[id]
		for i, r := range rs {
			if r == s.flow {
				e.readers[id] = append(rs[:i:i], rs[i+1:]...)
				break
			}
		}
	}
}

// Unsubscribe stops feeding a subscription.
func (e *Engine) Unsubscribe(ctx context.Context, sub *Subscription) error {
	return e.call(ctx, func(e *Engine) error {
		e.removeSubscription(sub)
		return nil
	})
}

// endDropped ends the feeds that read an object a catalog change dropped.
// names are the dropped objects' names, by id.
func (e *Engine) endDropped(names map[uint64]string) {
	for s := range e.subs {
		deps := slices.Clone(s.opts.Dependencies)
		for id := range s.flow.inputs {
			deps = append(deps, id)
		}
		for _, id := range deps {
			if name, ok := names[id]; ok {
				s.end(pgerr.New(pgerr.UndefinedTable, "subscription ended: relation %q was dropped", name))
				e.removeSubscription(s)
				break
			}
		}
	}
}

// heartbeatSubscriptions tells every feed that the clock reached e.ts.
func (e *Engine) heartbeatSubscriptions() {
	for s := range e.subs {
		if s.heartbeat(e.ts) {
			e.removeSubscription(s)
		}
	}
}

// call runs fn on the coordinator between ticks.
func (e *Engine) call(ctx context.Context, fn func(e *Engine) error) error {
	return e.submit(ctx, &coordReq{call: func(_ context.Context, e *Engine) error { return fn(e) }})
}

// subPush is one subscription's changes of a tick, pushed to its client
// once the tick is durable.
type subPush struct {
	sub   *Subscription
	delta dataflow.Batch
	errs  []dataflow.ErrorUpdate
	share *TickShare
}
