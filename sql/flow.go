package sql

import (
	"context"
	"fmt"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/types"
)

// flow is the maintained dataflow of a materialized view or an index: one
// graph whose inputs are fed each tick with the changes of the objects it
// reads.
type flow struct {
	obj    *Object
	graph  *dataflow.Graph
	inputs map[uint64]*dataflow.Input
	out    *dataflow.Output // contents of a materialized view
	index  *dataflow.Index  // contents of an index
	sub    *subscription    // a SUBSCRIBE's change queue
}

// snapshot returns the flow's readable contents.
func (f *flow) snapshot() *dataflow.Snapshot {
	if f.index != nil {
		return f.index.Snapshot()
	}
	return f.out.Snapshot()
}

// buildViewFlow lowers a materialized view's plan.
func (c *coordinator) buildViewFlow(obj *Object, plan planner.Node) (*flow, error) {
	f := &flow{obj: obj, graph: dataflow.NewGraph(), inputs: map[uint64]*dataflow.Input{}}
	lc := &planner.LowerContext{Graph: f.graph, Eval: &scalar.EvalContext{Text: types.DefaultTextConfig()}, Get: f.input}
	root, err := planner.Lower(lc, plan)
	if err != nil {
		return nil, err
	}
	f.out = f.graph.Output(root)
	return f, nil
}

// buildIndexFlow arranges an object by key columns.
func (c *coordinator) buildIndexFlow(obj *Object) (*flow, error) {
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
	return f, nil
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
	return in.Node(), nil
}

// hydrate feeds a new flow the current contents of everything it reads
// and runs its first step.
func (c *coordinator) hydrate(ctx context.Context, f *flow) error {
	for id, in := range f.inputs {
		if t, ok := c.tables[id]; ok {
			b, err := t.snapshot().batch()
			if err != nil {
				return err
			}
			in.Push(b)
			continue
		}
		src := c.flowByID(id)
		if src == nil {
			return fmt.Errorf("%s reads unknown object %d", f.obj.Name, id)
		}
		snap := src.out.Snapshot()
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

// snapshotRows calls fn for every row of a snapshot regardless of its
// error state: a dataflow fed from it receives the errors separately.
func snapshotRows(s *dataflow.Snapshot, fn func(row types.Row, n int64)) error {
	return s.ScanAll(func(row types.Row, n int64) bool {
		fn(row, n)
		return true
	})
}

func (c *coordinator) flowByID(id uint64) *flow { return c.flowIndex[id] }
