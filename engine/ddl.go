package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/planner"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// DDL is a catalog change being built on the coordinator's goroutine.
// Nothing it does is visible until the change commits: new flows are built
// and hydrated aside, and installed together with the new catalog.
type DDL struct {
	e     *Engine
	cat   *catalog.Catalog
	batch *storage.Batch

	newTables []*tableState
	newFlows  []*flow
	// persisted lists the new flows that wrote state (see hydrateNew).
	persisted []uint64
	created   []*catalog.Object
	dropped   map[uint64]bool
	// watermarks are the watermarks of the objects the change creates,
	// kept by the engine at once (a view created beside its table reads
	// it) and forgotten again if the change fails.
	watermarks []uint64
	// droppedList is what Drop removed, in order, replacedList the
	// entries Replace changed, as they were (ddl_undo.go).
	droppedList  []Dropped
	replacedList []*catalog.Object
	// after runs once the change has committed, on the coordinator.
	after []func(ctx context.Context, e *Engine)
	// owner is the role that objects created without one are owned by.
	owner uint64
}

// SetOwner makes role the owner of the objects the change creates
// without an owner of their own: the role of the session that runs it.
func (tx *DDL) SetOwner(role uint64) { tx.owner = role }

// afterCommit schedules fn to run on the coordinator once the change has
// committed and been published.
func (tx *DDL) afterCommit(fn func(ctx context.Context, e *Engine)) {
	tx.after = append(tx.after, fn)
}

// RunDDL runs a catalog change as a tick of its own and waits until it
// has committed (or failed). fn runs on the coordinator's goroutine and
// builds the change on tx; an error from fn, or a panic, discards
// everything it did. The ctx fn receives is the tick loop's.
func (e *Engine) RunDDL(ctx context.Context, fn func(ctx context.Context, tx *DDL) error) error {
	return e.submit(ctx, &coordReq{ddl: fn})
}

// Catalog returns the catalog as the change has built it so far.
func (tx *DDL) Catalog() *catalog.Catalog { return tx.cat }

// CreatedObjects returns the objects the change has created so far.
func (tx *DDL) CreatedObjects() []*catalog.Object { return tx.created }

// Drops reports whether the change drops any object.
func (tx *DDL) Drops() bool { return len(tx.dropped) > 0 }

// ddlTick runs one catalog change as its own tick.
func (e *Engine) ddlTick(ctx context.Context, r *coordReq) error {
	tx := &DDL{e: e, cat: e.cat.Clone(), batch: e.store.NewBatch(), dropped: map[uint64]bool{}}
	if err := e.buildDDL(ctx, r, tx); err != nil {
		e.wmMu.Lock()
		for _, id := range tx.watermarks {
			delete(e.wms, id)
		}
		e.wmMu.Unlock()
		tx.batch.Discard()
		if err := tx.dropNewState(); err != nil {
			return fmt.Errorf("drop the state of a failed catalog change: %w", err)
		}
		r.err = err
		close(r.done)
		r.done = nil
		return nil
	}
	ts := e.nextTS()
	tx.batch.SetMeta("ts", tsValue(ts))
	if err := tx.batch.Commit(); err != nil {
		return fmt.Errorf("commit catalog change: %w", err)
	}
	e.ts = ts
	e.ticked = true
	names := map[uint64]string{}
	for id := range tx.dropped {
		names[id] = e.objectName(id)
		delete(e.tables, id)
		delete(e.hist.created, id)
	}
	e.cat = tx.cat
	if len(tx.dropped) > 0 {
		e.endDropped(names)
		e.dropFlows(tx.dropped)
		// The base must not hold a dropped table's rows: Restore puts
		// the table back under the same id, over the current base.
		e.rebase()
	}
	for _, t := range tx.newTables {
		e.tables[t.obj.ID] = t
		e.hist.created[t.obj.ID] = ts
		e.dirty[t.obj.ID] = true
	}
	for _, f := range tx.newFlows {
		e.addFlow(ctx, f)
	}
	e.publish()
	for _, fn := range tx.after {
		fn(ctx, e)
	}
	e.startStreams(ctx)
	close(r.done)
	r.done = nil
	return nil
}

// buildDDL runs a catalog change's function on tx, turning a panic into an internal
// error (XX000) of its statement, logged with its stack: a bug that one
// statement's query meets while it is bound, planned or hydrated fails
// that statement, as an internal error does in PostgreSQL, instead of
// stopping the server, whose coordinator runs the change. What the change
// made waits in tx until it returns, and is discarded with a failed one.
func (e *Engine) buildDDL(ctx context.Context, r *coordReq, tx *DDL) (err error) {
	defer func() {
		if p := recover(); p != nil {
			e.log.Error("panic in a catalog change; its statement fails", "panic", p, "stack", string(debug.Stack()))
			err = pgerr.New(pgerr.InternalError, "internal error: %v", p)
		}
	}()
	return r.ddl(ctx, tx)
}

// NextID reserves an object id.
func (tx *DDL) NextID() uint64 {
	id := tx.cat.NextID
	tx.cat.NextID++
	return id
}

// Create adds an object: persists its catalog entry and builds its state
// (an empty table, or a hydrated dataflow).
func (tx *DDL) Create(ctx context.Context, o *catalog.Object) error {
	if other, exists := tx.cat.Conflict(o); exists {
		return errExists(o, other, tx.cat)
	}
	if o.Owner == 0 && o.Kind != catalog.KindRole && o.Kind != catalog.KindDatabase {
		o.Owner = tx.owner
	}
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if o.HasRows() {
		if o.Cold && !o.NotStored {
			tx.newTables = append(tx.newTables, newColdState(o, tx.e.store))
		} else {
			tx.newTables = append(tx.newTables, newTableState(o, &tx.e.base))
		}
	}
	if o.Watermark != nil {
		tx.e.wmMu.Lock()
		tx.e.wms[o.ID] = newWatermark(o)
		tx.e.wmMu.Unlock()
		tx.watermarks = append(tx.watermarks, o.ID)
	}
	switch o.Kind {
	case catalog.KindMaterializedView:
		f, err := tx.e.buildViewFlow(o, o.Plan)
		if err != nil {
			return err
		}
		if err := tx.hydrateNew(ctx, f, func() error { return tx.e.hydrate(ctx, f, tx.e, nil) }); err != nil {
			return err
		}
		tx.newFlows = append(tx.newFlows, f)
	case catalog.KindIndex:
		f, err := tx.e.buildIndexFlow(o)
		if err != nil {
			return err
		}
		err = tx.hydrateNew(ctx, f, func() error {
			if tx.createsTable(o.On) {
				// The table is created by this change too: it is empty.
				return f.graph.Step(ctx)
			}
			return tx.e.hydrate(ctx, f, tx.e, nil)
		})
		if err != nil {
			return err
		}
		if on, ok := tx.cat.ByID(o.On); ok && o.Unique {
			if err := checkNewUniqueIndex(o, on, f.snapshot()); err != nil {
				return err
			}
		}
		tx.newFlows = append(tx.newFlows, f)
	}
	if o.Kind == catalog.KindSequence {
		st := &seqState{def: *o.Sequence, last: o.Sequence.Start}
		tx.afterCommit(func(_ context.Context, e *Engine) { e.seqs.set(o.ID, st) })
	}
	tx.batch.PutCatalog(o.ID, data)
	tx.cat.Add(o)
	tx.created = append(tx.created, o)
	return nil
}

// errExists is the error of creating o when other holds its name: for a
// role, PostgreSQL's; otherwise what holds the name (Catalog.NameTaken).
func errExists(o, other *catalog.Object, cat *catalog.Catalog) error {
	if o.Kind == catalog.KindRole {
		return pgerr.New(pgerr.DuplicateObject, "role %q already exists", o.Name)
	}
	return cat.NameTaken(other)
}

// SetMeta stores a named value in the store's metadata with the change.
func (tx *DDL) SetMeta(name string, value []byte) { tx.batch.SetMeta(name, value) }

// CreateTableAs creates table obj holding the rows of plan, computed now
// the way a materialized view's first contents are, and written in the
// change's durable batch: the table appears with its rows or not at all.
// It returns the number of rows; with skipData the table is created
// empty.
func (tx *DDL) CreateTableAs(ctx context.Context, obj *catalog.Object, plan planner.Node, skipData bool) (int, error) {
	var rows []types.Row
	if !skipData {
		f, err := tx.e.buildViewFlow(&catalog.Object{ID: obj.ID, Kind: catalog.KindMaterializedView, Name: obj.Name, Columns: obj.Columns}, plan)
		if err != nil {
			return 0, err
		}
		f.unpersist()
		if err := tx.e.hydrate(ctx, f, tx.e, nil); err != nil {
			return 0, err
		}
		if rows, err = f.snapshot().Rows(); err != nil {
			return 0, err
		}
	}
	if err := tx.Create(ctx, obj); err != nil {
		return 0, err
	}
	t := tx.newTables[len(tx.newTables)-1]
	var buf []byte
	for _, row := range rows {
		key := rowIDKey(t.nextRowID)
		t.nextRowID++
		buf = types.AppendRow(buf[:0], row)
		t.insert(key, string(buf))
		tx.batch.Put(obj.ID, []byte(key), buf)
	}
	return len(rows), nil
}

// NameTaken checks that a new relation's name is free. When it is taken,
// CREATE … IF NOT EXISTS skips with a notice (taken, no error); plain
// CREATE fails.
func (tx *DDL) NameTaken(name string, ifNotExists bool, notice func(*pgerr.Error)) (bool, error) {
	other, exists := tx.cat.Lookup(catalog.DefaultSchema, name)
	if !exists {
		return false, nil
	}
	if ifNotExists {
		notice(pgerr.New(pgerr.DuplicateTable, "relation %q already exists, skipping", name))
		return true, nil
	}
	return true, tx.cat.NameTaken(other)
}

// hydrateNew hydrates a new flow by run. A flow that persists writes the
// state it builds in batches of its own as it goes (see spillBatch), and
// its header in the change's batch, so that the state becomes the view's
// with the change; should the change fail, dropNewState drops it.
func (tx *DDL) hydrateNew(ctx context.Context, f *flow, run func() error) error {
	if f.state == nil {
		return run()
	}
	tx.persisted = append(tx.persisted, f.obj.ID)
	spill := f.spillTo(tx.e.store)
	err := run()
	f.state.spill = nil
	if ferr := spill.flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	tx.batch.PutStateHeader(f.obj.ID, f.header)
	return nil
}

// dropNewState deletes the state written for the new flows of a change
// that failed.
func (tx *DDL) dropNewState() error {
	if len(tx.persisted) == 0 {
		return nil
	}
	b := tx.e.store.NewBatch()
	for _, id := range tx.persisted {
		b.DropState(id)
	}
	return b.Commit()
}

// createsTable reports whether the change creates the table id.
func (tx *DDL) createsTable(id uint64) bool {
	for _, t := range tx.newTables {
		if t.obj.ID == id {
			return true
		}
	}
	return false
}

// Drop removes an object and its stored state.
func (tx *DDL) Drop(o *catalog.Object) {
	tx.keep(o)
	tx.cat.Remove(o)
	tx.batch.DeleteCatalog(o.ID)
	if o.HasRows() {
		tx.batch.DropCollection(o.ID)
		tx.batch.DeleteMeta(rowsKey(o.ID))
	}
	if o.Kind == catalog.KindMaterializedView || o.Kind == catalog.KindIndex {
		tx.batch.DropState(o.ID)
	}
	if o.Watermark != nil {
		dropWatermark(tx.batch, o.ID)
		tx.afterCommit(func(_ context.Context, e *Engine) {
			e.wmMu.Lock()
			delete(e.wms, o.ID)
			e.wmMu.Unlock()
		})
	}
	if o.Kind == catalog.KindSequence {
		tx.batch.DropPositions(o.ID)
		tx.afterCommit(func(_ context.Context, e *Engine) { e.seqs.set(o.ID, nil) })
	}
	if o.Kind == catalog.KindSink {
		tx.batch.DropCollection(o.ID)
		tx.batch.DropPositions(o.ID)
		tx.afterCommit(func(_ context.Context, e *Engine) { e.dropSink(o.ID) })
	}
	if o.Kind == catalog.KindSource {
		tx.batch.DropPositions(o.ID)
		tx.afterCommit(func(_ context.Context, e *Engine) {
			e.sourcesMu.Lock()
			rs := e.running[o.ID]
			delete(e.running, o.ID)
			e.sourcesMu.Unlock()
			if rs != nil {
				rs.dropped = true
				if rs.cancel != nil {
					rs.cancel()
				}
			}
		})
	}
	tx.dropped[o.ID] = true
}
