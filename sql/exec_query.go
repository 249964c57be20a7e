package sql

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/sql/pgerr"
	"github.com/streamdb/streamdb/sql/types"
)

// bindQuery binds and optimises a SELECT for one-tick execution.
func (s *session) bindQuery(cat *Catalog, raw *rawStatement, params []types.Type) (*boundStmt, error) {
	b := newBinder(cat, &s.info, params)
	bq, err := b.selectStmt(raw.node.GetSelectStmt(), nil)
	if err != nil {
		return nil, err
	}
	q, err := planner.OptimizeQuery(bq.q)
	if err != nil {
		return nil, err
	}
	q.Root = planner.UseLookups(q.Root)
	cols := resultColumns(bq.columns())
	return &boundStmt{
		params: b.paramTypes(),
		cols:   cols,
		run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
			rows, err := s.runQuery(ctx, q, params)
			if err != nil {
				return nil, err
			}
			return &rowsResult{rows: rows, tag: "SELECT " + strconv.Itoa(len(rows))}, nil
		},
	}, nil
}

// resultColumns describes plan columns for RowDescription.
func resultColumns(cols []planner.Column) []pgwire.Column {
	if cols == nil {
		return nil
	}
	out := make([]pgwire.Column, len(cols))
	for i, c := range cols {
		out[i] = pgwire.Column{Name: c.Name, Type: c.Type}
	}
	return out
}

// evalContext returns the evaluation context of a statement.
func (s *session) evalContext(params []types.Datum) *scalar.EvalContext {
	now := time.Now()
	txnTime := now
	if s.txn != nil && !s.txn.implicit {
		txnTime = s.txn.start
	}
	return &scalar.EvalContext{Params: params, TxnTime: txnTime, StmtTime: now, Text: s.info.settings.textConfig(), Session: s.catalogView(nil)}
}

// runQuery executes a query as a one-tick dataflow over the latest
// snapshot (plus the transaction's own writes) and returns its rows in
// the query's order.
func (s *session) runQuery(ctx context.Context, q *planner.Query, params []types.Datum) ([]types.Row, error) {
	snap := s.e.snapshot()
	g := dataflow.NewGraph()
	ev := s.evalContext(params)
	lc := &planner.LowerContext{Graph: g, Eval: ev, Get: func(get *planner.Get) (dataflow.Node, error) {
		in := g.Input()
		if err := s.feedObject(snap, in, get, ev); err != nil {
			return dataflow.Node{}, err
		}
		return in.Node(), nil
	}}
	root, err := planner.LowerQuery(lc, q)
	if err != nil {
		return nil, err
	}
	out := g.Collect(root)
	if err := g.Step(ctx); err != nil {
		return nil, err
	}
	if err := out.Err(); err != nil {
		return nil, err
	}
	rows, err := expand(out.Delta())
	if err != nil {
		return nil, err
	}
	// LIMIT and OFFSET were applied by the top-k LowerQuery planned; the
	// rows it kept only need sorting.
	if len(q.Order) > 0 {
		cmp := planner.Comparator(q.Order)
		slices.SortStableFunc(rows, cmp)
	}
	if q.Hidden > 0 {
		width := len(q.Root.Columns()) - q.Hidden
		for i, r := range rows {
			rows[i] = r[:width:width]
		}
	}
	return rows, nil
}

// expand turns a consolidated Z-set into rows, each repeated by its
// multiplicity.
func expand(b dataflow.Batch) ([]types.Row, error) {
	n := 0
	for _, u := range b {
		if u.Diff < 0 {
			return nil, pgerr.New(pgerr.InternalError, "negative multiplicity %d in query result", u.Diff)
		}
		n += int(u.Diff)
	}
	rows := make([]types.Row, 0, n)
	for _, u := range b {
		for i := int64(0); i < u.Diff; i++ {
			rows = append(rows, u.Row)
		}
	}
	return rows, nil
}

// feedObject pushes an object's contents as of the snapshot into a
// one-tick input: the rows of a key lookup, or all rows.
func (s *session) feedObject(snap *snapshot, in *dataflow.Input, get *planner.Get, ev *scalar.EvalContext) error {
	id := uint64(get.ID)
	if isSystemID(id) {
		return s.feedSystem(snap, in, get)
	}
	obj, ok := snap.cat.ByID(id)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", get.Name)
	}
	if get.Index != 0 {
		return s.feedIndexLookup(snap, in, obj, get, ev)
	}
	if obj.hasRows() {
		if get.Lookup != nil {
			return s.feedLookup(snap, in, obj, get, ev)
		}
		b, err := s.tableInput(snap, obj, get.WithKey)
		if err != nil {
			return err
		}
		in.Push(b)
		return nil
	}
	vs, ok := snap.view(id)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", get.Name)
	}
	if err := vs.Err(); err != nil {
		return err
	}
	var b dataflow.Batch
	err := vs.Scan(func(row types.Row, n int64) bool {
		b = append(b, dataflow.Update{Row: row, Diff: n})
		return true
	})
	in.Push(b)
	return err
}

// feedLookup reads the rows of a table with the given primary key.
func (s *session) feedLookup(snap *snapshot, in *dataflow.Input, obj *Object, get *planner.Get, ev *scalar.EvalContext) error {
	var key []byte
	for _, e := range get.Lookup {
		d, err := scalar.Eval(ev, e, nil)
		if err != nil {
			return err
		}
		if d.IsNull() {
			return nil // NULL = anything is never true
		}
		key = types.AppendKey(key, d, false)
	}
	k := string(key)
	var row types.Row
	found := false
	if s.txn != nil {
		if tt, ok := s.txn.tables[obj.ID]; ok {
			row, found = tt.lookup(k)
			if found && row == nil {
				return nil
			}
		}
	}
	if !found {
		base, _ := snap.table(obj.ID)
		r, ok, err := base.get(k)
		if err != nil || !ok {
			return err
		}
		row = r
	}
	in.Push(dataflow.Batch{{Row: keyed(row, k, get.WithKey), Diff: 1}})
	return nil
}

// lookupKey evaluates a lookup's key values; ok is false when one is NULL,
// which matches nothing.
func lookupKey(get *planner.Get, ev *scalar.EvalContext) (types.Row, bool, error) {
	key := make(types.Row, len(get.Lookup))
	for i, e := range get.Lookup {
		d, err := scalar.Eval(ev, e, nil)
		if err != nil {
			return nil, false, err
		}
		if d.IsNull() {
			return nil, false, nil
		}
		key[i] = d
	}
	return key, true, nil
}

// feedIndexLookup reads the rows with a key through a secondary index. A
// transaction's own pending writes are not in the index, and an index row
// of a table without primary key does not say where the row is stored, so
// in those cases the table is scanned and filtered instead.
func (s *session) feedIndexLookup(snap *snapshot, in *dataflow.Input, obj *Object, get *planner.Get, ev *scalar.EvalContext) error {
	key, ok, err := lookupKey(get, ev)
	if err != nil || !ok {
		return err
	}
	scan := get.WithKey && len(obj.PrimaryKey) == 0
	if s.txn != nil {
		if tt, ok := s.txn.tables[obj.ID]; ok && len(tt.changes) > 0 {
			scan = true
		}
	}
	if scan {
		{
			all, err := s.tableInput(snap, obj, get.WithKey)
			if err != nil {
				return err
			}
			var b dataflow.Batch
			for _, u := range all {
				match := true
				for i, c := range get.KeyCols {
					if types.Compare(u.Row[c], key[i]) != 0 {
						match = false
						break
					}
				}
				if match {
					b = append(b, u)
				}
			}
			in.Push(b)
			return nil
		}
	}
	idx, ok := snap.view(uint64(get.Index))
	if !ok {
		return pgerr.New(pgerr.UndefinedObject, "index of %q does not exist", get.Name)
	}
	if err := idx.Err(); err != nil {
		return err
	}
	var b dataflow.Batch
	err = idx.Lookup(key, func(row types.Row, n int64) bool {
		if get.WithKey {
			row = keyed(row, rowKey(obj, row), true)
		}
		b = append(b, dataflow.Update{Row: row, Diff: n})
		return true
	})
	in.Push(b)
	return err
}
