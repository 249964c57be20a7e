package sql

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
	"unsafe"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/engine"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/pgwire"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/planner/scalar"
	"github.com/streamdb/streamdb/types"
)

// bindQuery binds and optimises a SELECT for one-tick execution.
func (s *session) bindQuery(cat *catalog.Catalog, raw *rawStatement, params []types.Type) (*boundStmt, error) {
	b := newBinder(cat, &s.info, params)
	bq, err := b.selectStmt(raw.node.GetSelectStmt(), nil)
	if err != nil {
		return nil, err
	}
	q, err := planner.Plan(bq.q, planner.OneTick)
	if err != nil {
		return nil, err
	}
	cols := resultColumns(bq.columns())
	return &boundStmt{
		params: b.paramTypes(),
		cols:   cols,
		run: func(ctx context.Context, s *session, params []types.Datum) (pgwire.Result, error) {
			return s.streamQuery(ctx, q, params)
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

// runQuerySnap runs a query to its end as a one-tick dataflow over the
// latest snapshot (plus the transaction's own writes) and returns its
// rows in the query's order, and the snapshot it read: a write checks at
// commit that the rows it changes are still as they were in that
// snapshot, the rows it computed its changes from. A query that must run
// again (see rerunAfter) waits and does.
func (s *session) runQuerySnap(ctx context.Context, q *planner.Query, params []types.Datum) ([]types.Row, *engine.Snapshot, error) {
	for {
		snap := s.e.snapshot()
		var rows []types.Row
		var kept int64
		err := s.runQueryAt(ctx, snap, q, params, &kept, func(b dataflow.Batch) error {
			for _, u := range b {
				for range u.Diff {
					rows = append(rows, u.Row)
				}
				kept += sizeRowRef * u.Diff
			}
			return nil
		})
		next := rerunAfter(err, snap)
		if next == nil {
			return rows, snap, err
		}
		select {
		case <-next:
		case <-ctx.Done():
			return nil, nil, ctx.Err()
		}
	}
}

// rerunAfter says when a query that failed with err over snap can run
// again, nil when it cannot. A view the query reads may have changed
// since the snapshot was published without anyone pinning it then (see
// dataflow.Output.Publish): the next snapshot holds it. A view still
// hydrating after a restart is waited for, as long as the statement may
// run.
func rerunAfter(err error, snap *engine.Snapshot) <-chan struct{} {
	var he *engine.HydrationError
	switch {
	case errors.As(err, &he):
		return he.Ready
	case errors.Is(err, dataflow.ErrSnapshotGone):
		return snap.Next()
	}
	return nil
}

// sizeRowRef is the bytes of a row's reference in a slice of rows.
const sizeRowRef = int64(unsafe.Sizeof(types.Row(nil)))

// runQueryAt runs a query over one snapshot and hands its rows to emit
// in batches, in the query's order, as the one-tick dataflow produces
// them (after it has produced them all, when the query is ordered).
// Views are read while the query is lowered, before anything is
// evaluated, and tables the transaction has written to with them; other
// relations are read as the dataflow asks for their rows (see
// dataflow.Input.Feed). kept, when not nil, is the bytes the caller
// keeps of what it received, which the statement's memory budget
// counts with the dataflow's state.
func (s *session) runQueryAt(ctx context.Context, snap *engine.Snapshot, q *planner.Query, params []types.Datum, kept *int64, emit func(dataflow.Batch) error) error {
	g := dataflow.NewGraph()
	ev := s.evalContext(params)
	// mz_now() reads at the snapshot's tick, or now: nothing has
	// changed the tables since that tick. Either is whole milliseconds,
	// as the ticks that maintain temporal filters are.
	ev.ReadTime = time.UnixMilli(int64(snap.TS()))
	if now := s.e.now().Truncate(time.Millisecond); now.After(ev.ReadTime) {
		ev.ReadTime = now
	}
	// An object read whole more than once (a CTE used twice, a self
	// join) is read and decoded once, in the columns the reads need.
	type whole struct {
		id      planner.ObjectID
		withKey bool
		cols    string
	}
	read := map[whole]dataflow.Node{}
	var pins viewPins
	defer pins.unpin()
	var lc *planner.LowerContext
	lc = &planner.LowerContext{Graph: g, Eval: ev, Get: func(get *planner.Get) (dataflow.Node, error) {
		var keep func(int) bool
		w := whole{id: get.ID, withKey: get.WithKey}
		if cols, ok := lc.Needed(get); ok {
			keep, w.cols = cols.Contains, fmt.Sprint(cols.Ordered())
		}
		reusable := get.Index == 0 && get.Spans == nil
		if n, ok := read[w]; ok && reusable {
			return n, nil
		}
		in := g.Input()
		if err := s.feedObject(ctx, snap, &pins, in, get, ev, keep); err != nil {
			return dataflow.Node{}, err
		}
		if reusable {
			read[w] = in.Node()
		}
		return in.Node(), nil
	}}
	root, err := planner.Lower(lc, q.Root)
	if err != nil {
		return err
	}
	out := resultOut{q: q, emit: emit}
	g.Sink(root, out.receive)
	g.SetMemoryCheck(func(held int64) error {
		held += out.held
		if kept != nil {
			held += *kept
		}
		return checkMemory(ctx, held)
	})
	if err := g.StepFinal(ctx); err != nil {
		if pe := pgerr.As(err); pe != nil {
			return pe
		}
		return err
	}
	return out.end()
}

// viewPins are the published view snapshots a statement has read, pinned
// from its first read of each until it ends (see dataflow.Snapshot.Pin),
// so that every read of a view in the statement finds the same snapshot.
type viewPins []*dataflow.Snapshot

// pin pins vs unless the statement already did.
func (p *viewPins) pin(vs *dataflow.Snapshot) error {
	if slices.Contains(*p, vs) {
		return nil
	}
	if err := vs.Pin(); err != nil {
		return err
	}
	*p = append(*p, vs)
	return nil
}

// unpin ends the statement's pins. Its receiver is a pointer, so that a
// deferred unpin sees the pins made after the defer.
func (p *viewPins) unpin() {
	for _, vs := range *p {
		vs.Unpin()
	}
}

// feedObject pushes an object's contents as of the snapshot into a
// one-tick input: the rows of a key lookup, or all rows, of which a
// table's are decoded only in the columns keep reports (all when nil). A
// view's snapshot stays pinned in pins.
func (s *session) feedObject(ctx context.Context, snap *engine.Snapshot, pins *viewPins, in *dataflow.Input, get *planner.Get, ev *scalar.EvalContext, keep func(col int) bool) error {
	id := uint64(get.ID)
	if isSystemID(id) {
		return s.feedSystem(snap, in, get)
	}
	obj, ok := snap.Catalog().ByID(id)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", get.Name)
	}
	if get.Index != 0 {
		return s.feedIndexLookup(ctx, snap, in, obj, get, ev)
	}
	if obj.HasRows() {
		if get.Spans != nil {
			return s.feedSpans(snap, in, obj, get, ev)
		}
		if s.txnChanged(obj.ID) {
			b, err := s.tableInput(ctx, snap, obj, get.WithKey, keep)
			if err != nil {
				return err
			}
			in.Push(narrowRows(b, obj, get))
			return nil
		}
		return feedTable(snap, in, obj, get, keep)
	}
	vs, ok := snap.View(id)
	if !ok {
		if err := snap.ViewErr(id); err != nil {
			return err
		}
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", get.Name)
	}
	if err := vs.Err(); err != nil {
		return viewReadError(obj.Name, err)
	}
	if err := pins.pin(vs); err != nil {
		return err
	}
	feedView(in, vs)
	return nil
}

// feedSpans reads the rows of a table whose primary key lies in the
// Get's spans: one lookup per whole key, one bounded range scan per other
// interval, with the transaction's own pending changes laid over them.
func (s *session) feedSpans(snap *engine.Snapshot, in *dataflow.Input, obj *catalog.Object, get *planner.Get, ev *scalar.EvalContext) error {
	ivs, err := spanIntervals(get, len(obj.PrimaryKey), ev)
	if err != nil || len(ivs) == 0 {
		return err
	}
	base, ok := snap.Table(obj.ID)
	if !ok {
		return pgerr.New(pgerr.UndefinedTable, "relation %q does not exist", obj.Name)
	}
	var tt *txnTable
	var pending []string // the transaction's changed keys, sorted
	if s.txn != nil {
		if t, ok := s.txn.tables[obj.ID]; ok && len(t.changes) > 0 {
			tt = t
			pending = slices.Sorted(maps.Keys(t.changes))
		}
	}
	var b dataflow.Batch
	for _, iv := range ivs {
		if iv.point {
			row, found := types.Row(nil), false
			if tt != nil {
				if row, found = tt.lookup(iv.start); found && row == nil {
					continue
				}
			}
			if !found {
				r, ok, err := base.Get(iv.start)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				row = r
			}
			b = append(b, dataflow.Update{Row: keyed(row, iv.start, get.WithKey), Diff: 1})
			continue
		}
		err := base.ScanRange(iv.start, iv.end, nil, func(key string, row types.Row) bool {
			if tt != nil {
				if _, touched := tt.changes[key]; touched {
					return true
				}
			}
			b = append(b, dataflow.Update{Row: keyed(row, key, get.WithKey), Diff: 1})
			return true
		})
		if err != nil {
			return err
		}
		i, _ := slices.BinarySearch(pending, iv.start)
		for ; i < len(pending) && (iv.end == "" || pending[i] < iv.end); i++ {
			if row := tt.changes[pending[i]].row; row != nil {
				b = append(b, dataflow.Update{Row: keyed(row, pending[i], get.WithKey), Diff: 1})
			}
		}
	}
	in.Push(narrowRows(b, obj, get))
	return nil
}

// narrowRows cuts rows of a relation that gained columns since the plan
// reading it was bound (a source's relation, widened by an upstream ADD
// COLUMN under a view bound before) back to the columns the plan knows,
// which keep their positions.
func narrowRows(b dataflow.Batch, obj *catalog.Object, get *planner.Get) dataflow.Batch {
	w := len(get.Cols)
	if get.WithKey || len(obj.Columns) <= w {
		return b
	}
	for i := range b {
		if r := b[i].Row; len(r) > w {
			b[i].Row = r[:w:w]
		}
	}
	return b
}

// feedIndexLookup reads the rows with given keys through a secondary
// index. A transaction's own pending writes are not in the index, and an
// index row of a table without primary key does not say where the row is
// stored, so in those cases the table is scanned and filtered instead.
func (s *session) feedIndexLookup(ctx context.Context, snap *engine.Snapshot, in *dataflow.Input, obj *catalog.Object, get *planner.Get, ev *scalar.EvalContext) error {
	keys, err := spanPoints(get, ev)
	if err != nil || len(keys) == 0 {
		return err
	}
	scan := get.WithKey && len(obj.PrimaryKey) == 0
	if s.txn != nil {
		if tt, ok := s.txn.tables[obj.ID]; ok && len(tt.changes) > 0 {
			scan = true
		}
	}
	if scan {
		all, err := s.tableInput(ctx, snap, obj, get.WithKey, nil)
		if err != nil {
			return err
		}
		var b dataflow.Batch
		for _, u := range all {
			if slices.ContainsFunc(keys, func(key types.Row) bool { return keyMatches(u.Row, get.KeyCols, key) }) {
				b = append(b, u)
			}
		}
		in.Push(narrowRows(b, obj, get))
		return nil
	}
	idx, ok := snap.View(uint64(get.Index))
	if !ok {
		if err := snap.ViewErr(uint64(get.Index)); err != nil {
			return err
		}
		return pgerr.New(pgerr.UndefinedObject, "index of %q does not exist", get.Name)
	}
	if err := idx.Err(); err != nil {
		return err
	}
	var b dataflow.Batch
	for _, key := range keys {
		err = idx.Lookup(key, func(row types.Row, n int64) bool {
			if get.WithKey {
				row = keyed(row, engine.RowKey(obj, row), true)
			}
			b = append(b, dataflow.Update{Row: row, Diff: n})
			return true
		})
		if err != nil {
			return err
		}
	}
	in.Push(narrowRows(b, obj, get))
	return nil
}

// keyMatches reports whether row's key columns equal key.
func keyMatches(row types.Row, keyCols []int, key types.Row) bool {
	for i, c := range keyCols {
		if types.Compare(row[c], key[i]) != 0 {
			return false
		}
	}
	return true
}
