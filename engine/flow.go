package engine

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// flow is the maintained dataflow of a materialized view or an index: one
// graph whose inputs are fed each tick with the changes of the objects it
// reads.
type flow struct {
	obj    *catalog.Object
	graph  *dataflow.Graph
	inputs map[uint64]*dataflow.Input
	// widths holds, per input, how many columns of its object the plan
	// reads: a relation that gained columns since the plan was bound
	// (sources.Batch.AddColumns) has wider rows, which narrow cuts back.
	widths map[uint64]int
	out    *dataflow.Output // contents of a materialized view
	index  *dataflow.Index  // contents of an index
	sub    *Subscription    // a SUBSCRIBE's change queue
	stats  flowStats
	// state is where the flow persists its state, nil when it does not
	// (see state.go); header is what the state's header says of it.
	state  *flowState
	header []byte
	// plan is the physical plan a view's graph was lowered from, which
	// the search for an error's example row lowers again.
	plan planner.Node
}

// snapshot returns the flow's readable contents.
func (f *flow) snapshot() *dataflow.Snapshot {
	if f.index != nil {
		return f.index.Snapshot()
	}
	return f.out.Snapshot()
}

// publish returns the flow's contents for the snapshot published after a
// tick: a view's is held once a statement reads it, and given up by the
// next tick that changes the view when no statement pins it any more
// (see dataflow.Output.Publish). An index's is held for good: writes
// check unique indexes against it.
func (f *flow) publish() *dataflow.Snapshot {
	if f.index != nil {
		return f.index.Snapshot()
	}
	return f.out.Publish()
}

// buildViewFlow lowers a materialized view's plan.
func (e *Engine) buildViewFlow(obj *catalog.Object, plan planner.Node) (*flow, error) {
	f := &flow{obj: obj, graph: dataflow.NewGraph(), inputs: map[uint64]*dataflow.Input{}, plan: planner.Physical(plan, planner.Maintained)}
	out, err := e.lowerView(f, f.plan)
	if err != nil {
		return nil, err
	}
	f.out = out
	e.persistFlow(f, planner.ExplainNode(f.plan))
	return f, nil
}

// lowerView lowers a view's physical plan onto f's graph, with an input
// per object it reads.
func (e *Engine) lowerView(f *flow, plan planner.Node) (*dataflow.Output, error) {
	lc := &planner.LowerContext{Graph: f.graph, Eval: &scalar.EvalContext{Text: types.DefaultTextConfig()}, Get: f.input, Watermark: e.watermarkOf}
	root, err := planner.Lower(lc, plan)
	if err != nil {
		return nil, err
	}
	return f.graph.Output(root), nil
}

// buildIndexFlow arranges an object by key columns.
func (e *Engine) buildIndexFlow(obj *catalog.Object) (*flow, error) {
	f := &flow{obj: obj, graph: dataflow.NewGraph(), inputs: map[uint64]*dataflow.Input{}}
	in := f.graph.Input()
	f.inputs[obj.On] = in
	cols := obj.KeyCols
	f.index = f.graph.Index(in.Node(), func(r types.Row) types.Row {
		k := make(types.Row, len(cols))
		for i, c := range cols {
			k[i] = r[c]
		}
		return k
	})
	e.persistFlow(f, fmt.Sprintf("index on %d by %v", obj.On, cols))
	return f, nil
}

// unpersist makes a flow just built keep its state in memory only: a
// flow computed once (CREATE TABLE AS) has no state to keep.
func (f *flow) unpersist() {
	f.state, f.header = nil, nil
	f.graph.Persist(nil)
}

// input returns the graph input for an object, one per object however
// often the plan reads it.
func (f *flow) input(g *planner.Get) (dataflow.Node, error) {
	id := uint64(g.ID)
	in, ok := f.inputs[id]
	if !ok {
		in = f.graph.Input()
		f.inputs[id] = in
	}
	if !g.WithKey {
		if f.widths == nil {
			f.widths = map[uint64]int{}
		}
		f.widths[id] = len(g.Cols)
	}
	return in.Node(), nil
}

// narrow returns the rows of b, changes of object id, as wide as the
// flow's plan reads them: their leading columns. Columns are only ever
// added at the end, so the columns the plan knows keep their positions.
func (f *flow) narrow(id uint64, b dataflow.Batch) dataflow.Batch {
	w, ok := f.widths[id]
	if !ok {
		return b
	}
	i := 0
	for i < len(b) && len(b[i].Row) <= w {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make(dataflow.Batch, len(b))
	for j, u := range b {
		if len(u.Row) > w {
			u.Row = u.Row[:w:w]
		}
		out[j] = u
	}
	return out
}

// hydrateChunk is how many rows of a table hydrate feeds a flow per step,
// and hydrateChunkBytes how many bytes of them a reusing RowReader holds
// at most: wide rows make shorter chunks.
const (
	hydrateChunk      = 1 << 16
	hydrateChunkBytes = 64 << 20
)

// inputs are the contents a new flow hydrates from: the coordinator's
// current ones, or those of a published snapshot for a flow rebuilt in
// the background.
type inputs interface {
	table(id uint64) (*TableSnap, bool)
	view(id uint64) (*dataflow.Snapshot, bool)
}

func (e *Engine) table(id uint64) (*TableSnap, bool) {
	t, ok := e.tables[id]
	if !ok {
		return nil, false
	}
	return t.snapshot(), true
}

func (e *Engine) view(id uint64) (*dataflow.Snapshot, bool) {
	f := e.flowByID(id)
	if f == nil || f.out == nil {
		return nil, false
	}
	return f.out.Snapshot(), true
}

func (s *Snapshot) table(id uint64) (*TableSnap, bool) { return s.Table(id) }

func (s *Snapshot) view(id uint64) (*dataflow.Snapshot, bool) { return s.View(id) }

// hydrate feeds a new flow the current contents of everything it reads
// and runs its first step. A table is fed in chunks, a step each, so that
// memory holds one chunk of its rows at a time rather than all of them (a
// cold source relation can be far larger than memory); a subscription,
// whose first step's delta is its snapshot, is fed whole. progress, when
// set, is told of the rows fed.
func (e *Engine) hydrate(ctx context.Context, f *flow, src inputs, progress func(rows int64)) error {
	// The flow starts at the time of the tick that creates it, or
	// later: a temporal filter keeps the rows valid from then on.
	f.graph.SetTime(int64(max(e.ts, uint64(e.clock.Now().UnixMilli()))) * 1000)
	for id, in := range f.inputs {
		if t, ok := src.table(id); ok {
			if err := e.hydrateTable(ctx, f, in, t, progress, f.graph.Step, nil); err != nil {
				return err
			}
			continue
		}
		snap, ok := src.view(id)
		if !ok {
			return fmt.Errorf("%s reads unknown object %d", f.obj.Name, id)
		}
		in.PushErrors(snap.Errors())
		var batch dataflow.Batch
		if err := snapshotRows(snap, func(row types.Row, n int64) {
			batch = append(batch, dataflow.Update{Row: row, Diff: n})
		}); err != nil {
			return err
		}
		in.Push(batch)
	}
	return f.graph.Step(ctx)
}

// hydrateTable feeds a flow the rows of a table, logging progress on
// large tables: a chunk at a time, each followed by step (the graph's
// Step, or its Derive at restore), the last left for the caller's step.
// The rows are decoded by dec, whole into rows of their own when it is
// nil; a reusing dec (Derive's) takes its memory, and the chunk's,
// again for the next chunk. A relation that is not stored can feed only
// a flow made before it ingested anything.
func (e *Engine) hydrateTable(ctx context.Context, f *flow, in *dataflow.Input, s *TableSnap, progress func(rows int64), step func(context.Context) error, dec *RowReader) error {
	if s.obj.NotStored {
		if s.rows > 0 {
			return errNewViewNotStored(f.obj, s.obj, s.rows)
		}
		return nil
	}
	if f.sub != nil {
		b, err := s.batch()
		if err != nil {
			return err
		}
		in.Push(f.narrow(s.obj.ID, b))
		return nil
	}
	var stepErr error
	var n int
	b := make(dataflow.Batch, 0, min(s.SizeHint(), hydrateChunk))
	err := s.ScanRange("", "", dec, func(_ string, row types.Row) bool {
		b = append(b, dataflow.Update{Row: row, Diff: 1})
		if len(b) < hydrateChunk && !dec.full() {
			return true
		}
		in.Push(f.narrow(s.obj.ID, b))
		if stepErr = step(ctx); stepErr != nil {
			return false
		}
		n += len(b)
		if progress != nil {
			progress(int64(len(b)))
		}
		if n%(1<<20) == 0 {
			e.log.Info("hydrating", "object", f.obj.Name, "input", s.obj.Name, "rows", n)
		}
		if dec.reusing() {
			dec.reset()
			b = b[:0]
		} else {
			b = make(dataflow.Batch, 0, hydrateChunk)
		}
		return true
	})
	if err != nil {
		return err
	}
	if stepErr != nil {
		return stepErr
	}
	if progress != nil {
		progress(int64(len(b)))
	}
	in.Push(f.narrow(s.obj.ID, b))
	return nil
}

// errNewViewNotStored is the error of a new view over a relation that is
// not stored and has ingested rows the view would lack.
func errNewViewNotStored(view, rel *catalog.Object, rows int64) error {
	return pgerr.New(pgerr.FeatureNotSupported, "%s %q cannot read %q: it is not stored, and the %d events its source ingested before the view existed are gone", view.Kind, view.Name, rel.Name, rows).
		WithHint("Create the views over a source that is not stored before it ingests, or create the source WITH (STORED = true).")
}

// snapshotRows calls fn for every row of a snapshot regardless of its
// error state: a dataflow fed from it receives the errors separately.
func snapshotRows(s *dataflow.Snapshot, fn func(row types.Row, n int64)) error {
	return s.ScanAll(func(row types.Row, n int64) bool {
		fn(row, n)
		return true
	})
}

func (e *Engine) flowByID(id uint64) *flow { return e.flowIndex[id] }

// flowQueue orders flows by object id: every flow after the flows it reads.
type flowQueue []*flow

func (q flowQueue) Len() int { return len(q) }

func (q flowQueue) Less(i, j int) bool { return q[i].obj.ID < q[j].obj.ID }

func (q flowQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }

func (q *flowQueue) Push(x any) { *q = append(*q, x.(*flow)) }

func (q *flowQueue) Pop() any {
	old := *q
	f := old[len(old)-1]
	*q = old[:len(old)-1]
	return f
}

// addFlow installs a flow and indexes the objects it reads; the errors
// a view is in once built are recorded with their examples.
func (e *Engine) addFlow(ctx context.Context, f *flow) {
	e.addTimed(f)
	e.flowIndex[f.obj.ID] = f
	for id := range f.inputs {
		e.readers[id] = append(e.readers[id], f)
	}
	e.dirty[f.obj.ID] = true
	e.trackHydratedErrors(ctx, f)
}

// dropFlows removes the flows of dropped objects.
func (e *Engine) dropFlows(dropped map[uint64]bool) {
	for id := range dropped {
		f := e.flowIndex[id]
		if f == nil {
			continue
		}
		e.dropTimed(f)
		for id := range f.inputs {
			rs := e.readers[id]
			for i, r := range rs {
				if r == f {
					e.readers[id] = append(rs[:i:i], rs[i+1:]...)
					break
				}
			}
		}
	}
	for id := range dropped {
		delete(e.readers, id)
		delete(e.flowIndex, id)
		delete(e.viewErrs, id)
		e.dirty[id] = true
	}
}
