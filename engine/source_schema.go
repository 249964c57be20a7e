package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// A source batch may change its relations wholesale before its changes:
// AddColumns widens a relation (an upstream ADD COLUMN), Truncate empties
// it (an upstream TRUNCATE, or a table snapshotted again). Both commit in
// the batch's tick, with its changes and positions.
//
// A column is added the way PostgreSQL adds one: at the end, existing rows
// reading its fill value, in the catalog entry and the stored rows of the
// same commit. The views, indexes and subscriptions reading the relation
// are not rebuilt: their plans know the columns they were bound with,
// which keep their positions, and their inputs cut the wider rows back to
// those (flow.narrow). The rewritten rows therefore change nothing they
// see, and no delta is emitted for them. A view's stored definition is
// bound, on later starts, against the catalog as of its creation
// (catalog.Catalog.AsOf), so that its SELECT * still means the columns it
// meant. Indexes are the exception: an index's contents are read as the
// relation's rows, so an index on a widened relation is rebuilt.

// checkSchemaChanges checks what a source may get wrong in a batch's
// AddColumns and Truncate before anything changes, so that a refused
// batch leaves the tick as it was.
func (e *Engine) checkSchemaChanges(rs *runningSource, b *sources.Batch, deltas map[uint64]dataflow.Batch) error {
	added := map[uint64][]string{}
	for _, ac := range b.AddColumns {
		t := e.sourceRelation(rs, ac.Output)
		if t == nil {
			continue
		}
		switch {
		case t.store != nil:
			return pgerr.New(pgerr.FeatureNotSupported, "source relation %q is kept in storage only and cannot gain a column", t.obj.Name)
		case slices.ContainsFunc(t.obj.Columns, func(c catalog.ColumnDef) bool { return c.Name == ac.Column.Name }),
			slices.Contains(added[t.obj.ID], ac.Column.Name):
			return pgerr.New(pgerr.DuplicateColumn, "column %q of relation %q already exists", ac.Column.Name, t.obj.Name)
		case len(deltas[t.obj.ID]) > 0:
			return pgerr.New(pgerr.InternalError, "source relation %q gains a column after changes of the same tick", t.obj.Name)
		}
		added[t.obj.ID] = append(added[t.obj.ID], ac.Column.Name)
	}
	for _, o := range b.Truncate {
		if t := e.sourceRelation(rs, o); t != nil && t.store != nil {
			return pgerr.New(pgerr.FeatureNotSupported, "source relation %q is kept in storage only and cannot be truncated", t.obj.Name)
		}
	}
	return nil
}

// addColumns applies a batch's AddColumns to the source's relations.
func (e *Engine) addColumns(ctx context.Context, rs *runningSource, adds []sources.AddedColumn, batch *storage.Batch) error {
	for _, ac := range adds {
		t := e.sourceRelation(rs, ac.Output)
		if t == nil {
			continue
		}
		if err := widenRows(t, ac.Fill, batch); err != nil {
			return err
		}
		id := t.obj.ID
		delete(rs.byRow, id)
		col := ac.Column
		obj := *t.obj
		obj.Columns = append(slices.Clone(t.obj.Columns), catalog.ColumnDef{Name: col.Name, Type: col.Type, NotNull: col.NotNull, Since: e.cat.NextID})
		data, err := json.Marshal(&obj)
		if err != nil {
			return err
		}
		batch.PutCatalog(id, data)
		cat := e.cat.Clone()
		cat.Replace(t.obj, &obj)
		e.cat = cat
		t.obj, t.snap = &obj, nil
		e.dirty[id] = true
		if err := e.rebuildIndexes(ctx, id, batch); err != nil {
			return err
		}
		e.log.Info("source relation gained a column", "relation", obj.Name, "column", col.Name, "type", col.Type.String())
	}
	return nil
}

// sourceRelation returns the relation of a source's output, nil for an
// output that is not kept.
func (e *Engine) sourceRelation(rs *runningSource, output int) *tableState {
	if output < 0 || output >= len(rs.outputs) || rs.outputs[output] == 0 {
		return nil
	}
	return e.tables[rs.outputs[output]]
}

// widenRows appends fill to every stored row of a relation, in its
// overlay and in the store.
func widenRows(t *tableState, fill types.Datum, batch *storage.Batch) error {
	switch {
	case t.notStored():
		return nil
	case t.store != nil:
		return pgerr.New(pgerr.FeatureNotSupported, "relation %s is append-only and cannot gain a column", t.obj.Name)
	}
	var rows []storedRow
	var row types.Row
	var derr error
	err := t.snapshot().scanEncoded("", "", func(key, val string) bool {
		if row, derr = types.DecodeRow([]byte(val), row[:0]); derr != nil {
			return false
		}
		rows = append(rows, storedRow{key: key, val: string(types.AppendRow(nil, append(row, fill)))})
		return true
	})
	if derr != nil {
		return fmt.Errorf("relation %s: corrupt row: %w", t.obj.Name, derr)
	}
	if err != nil {
		return err
	}
	for _, r := range rows {
		if _, _, err := t.put(r.key, r.val); err != nil {
			return err
		}
		batch.Put(t.obj.ID, []byte(r.key), []byte(r.val))
	}
	t.snap = nil
	return nil
}

// rebuildIndexes replaces the flows of the indexes on relation id, which
// hold its rows whole, with flows hydrated from its rows as they are now.
func (e *Engine) rebuildIndexes(ctx context.Context, id uint64, batch *storage.Batch) error {
	var olds []*flow
	for _, f := range e.readers[id] {
		if f.index != nil && f.obj.On == id {
			olds = append(olds, f)
		}
	}
	for _, old := range olds {
		f, err := e.buildIndexFlow(old.obj)
		if err != nil {
			return err
		}
		if err := e.hydrateRebuilt(ctx, f, batch); err != nil {
			return err
		}
		e.dropFlows(map[uint64]bool{old.obj.ID: true})
		e.addFlow(ctx, f)
	}
	return nil
}

// truncate deletes every row of the source's outputs listed, as deltas
// of the tick.
func (e *Engine) truncate(rs *runningSource, outputs []int, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	for _, o := range outputs {
		t := e.sourceRelation(rs, o)
		if t == nil {
			continue
		}
		id := t.obj.ID
		if t.notStored() || t.store != nil {
			return pgerr.New(pgerr.FeatureNotSupported, "relation %s keeps no rows it could truncate", t.obj.Name)
		}
		d := deltas[id]
		var keys []string
		var derr error
		err := t.snapshot().scanEncoded("", "", func(key, val string) bool {
			row, err := types.DecodeRow([]byte(val), nil)
			if err != nil {
				derr = err
				return false
			}
			d = append(d, dataflow.Update{Row: row, Diff: -1})
			keys = append(keys, key)
			return true
		})
		if derr != nil {
			return fmt.Errorf("relation %s: corrupt row: %w", t.obj.Name, derr)
		}
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			batch.DropCollection(id)
			for _, k := range keys {
				if _, _, err := t.remove(k); err != nil {
					return err
				}
			}
			// Whatever the count said: rows ingested by a tick that a
			// crash kept from committing are not in it (see bulk.go).
			t.rows = 0
			delete(rs.byRow, id)
		}
		if len(d) > 0 {
			deltas[id] = d
			e.dirty[id] = true
		}
	}
	return nil
}

// hydrateRebuilt hydrates a flow that replaces one of the same id in a
// source's tick. A flow that persists its state first drops the old
// flow's, in a commit of its own (a crash before the tick commits then
// finds no state and rebuilds the flow from its inputs), and writes its
// new state as a catalog change does; its header goes with the tick.
func (e *Engine) hydrateRebuilt(ctx context.Context, f *flow, batch *storage.Batch) error {
	if f.state == nil {
		return e.hydrate(ctx, f, e, nil)
	}
	drop := e.store.NewBatch()
	drop.DropState(f.obj.ID)
	if err := drop.Commit(); err != nil {
		return err
	}
	spill := f.spillTo(e.store)
	err := e.hydrate(ctx, f, e, nil)
	f.state.spill = nil
	if ferr := spill.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	batch.PutStateHeader(f.obj.ID, f.header)
	return nil
}
