package sql

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/storage"
)

// ddlTx is a catalog change being built on the coordinator's goroutine.
// Nothing it does is visible until the change commits: new flows are built
// and hydrated aside, and installed together with the new catalog.
type ddlTx struct {
	c     *coordinator
	ctx   context.Context
	cat   *catalog.Catalog
	batch *storage.Batch

	newTables []*tableState
	newFlows  []*flow
	created   []*catalog.Object
	dropped   map[uint64]bool
	// after runs once the change has committed, on the coordinator.
	after []func(c *coordinator)
}

// afterCommit schedules fn to run on the coordinator once the change has
// committed and been published.
func (tx *ddlTx) afterCommit(fn func(c *coordinator)) { tx.after = append(tx.after, fn) }

// ddlTick runs one catalog change as its own tick.
func (c *coordinator) ddlTick(ctx context.Context, r *coordReq) error {
	tx := &ddlTx{c: c, ctx: ctx, cat: c.cat.Clone(), batch: c.store.NewBatch(), dropped: map[uint64]bool{}}
	if err := c.runDDL(r, tx); err != nil {
		tx.batch.Discard()
		r.err = err
		close(r.done)
		r.done = nil
		return nil
	}
	ts := c.nextTS()
	tx.batch.SetMeta("ts", tsValue(ts))
	if err := tx.batch.Commit(); err != nil {
		return fmt.Errorf("commit catalog change: %w", err)
	}
	c.ts = ts
	c.cat = tx.cat
	for id := range tx.dropped {
		delete(c.tables, id)
	}
	if len(tx.dropped) > 0 {
		c.dropFlows(tx.dropped)
	}
	for _, t := range tx.newTables {
		c.tables[t.obj.ID] = t
		c.dirty[t.obj.ID] = true
	}
	for _, f := range tx.newFlows {
		c.addFlow(f)
	}
	c.publish()
	for _, fn := range tx.after {
		fn(c)
	}
	close(r.done)
	r.done = nil
	return nil
}

// runDDL runs a catalog change on tx, turning a panic into an internal
// error (XX000) of its statement, logged with its stack: a bug that one
// statement's query meets while it is bound, planned or hydrated fails
// that statement, as an internal error does in PostgreSQL, instead of
// stopping the server, whose coordinator runs the change. What the change
// made waits in tx until it returns, and is discarded with a failed one.
func (c *coordinator) runDDL(r *coordReq, tx *ddlTx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = internalError(c.log, "panic in a catalog change; its statement fails", p)
		}
	}()
	return r.ddl(tx)
}

// nextID reserves an object id.
func (tx *ddlTx) nextID() uint64 {
	id := tx.cat.NextID
	tx.cat.NextID++
	return id
}

// create adds an object: persists its catalog entry and builds its state
// (an empty table, or a hydrated dataflow).
func (tx *ddlTx) create(o *catalog.Object) error {
	if _, exists := tx.cat.Lookup(o.Schema, o.Name); exists {
		return pgerr.New(pgerr.DuplicateTable, "relation %q already exists", o.Name)
	}
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	if o.HasRows() {
		if o.Cold {
			tx.newTables = append(tx.newTables, newColdState(o, tx.c.store))
		} else {
			tx.newTables = append(tx.newTables, newTableState(o))
		}
	}
	switch o.Kind {
	case catalog.KindMaterializedView:
		f, err := tx.c.buildViewFlow(o, o.Plan)
		if err != nil {
			return err
		}
		if err := tx.c.hydrate(tx.ctx, f); err != nil {
			return err
		}
		tx.newFlows = append(tx.newFlows, f)
	case catalog.KindIndex:
		f, err := tx.c.buildIndexFlow(o)
		if err != nil {
			return err
		}
		if tx.createsTable(o.On) {
			// The table is created by this change too: it is empty.
			err = f.graph.Step(tx.ctx)
		} else {
			err = tx.c.hydrate(tx.ctx, f)
		}
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
		tx.afterCommit(func(c *coordinator) { c.seqs.set(o.ID, st) })
	}
	tx.batch.PutCatalog(o.ID, data)
	tx.cat.Add(o)
	tx.created = append(tx.created, o)
	return nil
}

// nameTaken checks that a new relation's name is free. When it is taken,
// CREATE … IF NOT EXISTS skips with a notice (taken, no error); plain
// CREATE fails.
func (tx *ddlTx) nameTaken(name string, ifNotExists bool, notice func(*pgerr.Error)) (bool, error) {
	if _, exists := tx.cat.Lookup(catalog.DefaultSchema, name); !exists {
		return false, nil
	}
	if ifNotExists {
		notice(pgerr.New(pgerr.DuplicateTable, "relation %q already exists, skipping", name))
		return true, nil
	}
	return true, pgerr.New(pgerr.DuplicateTable, "relation %q already exists", name)
}

// createsTable reports whether the change creates the table id.
func (tx *ddlTx) createsTable(id uint64) bool {
	for _, t := range tx.newTables {
		if t.obj.ID == id {
			return true
		}
	}
	return false
}

// drop removes an object and its stored state.
func (tx *ddlTx) drop(o *catalog.Object) {
	tx.cat.Remove(o)
	tx.batch.DeleteCatalog(o.ID)
	if o.HasRows() {
		tx.batch.DropCollection(o.ID)
	}
	if o.Kind == catalog.KindSequence {
		tx.batch.DropPositions(o.ID)
		tx.afterCommit(func(c *coordinator) { c.seqs.set(o.ID, nil) })
	}
	if o.Kind == catalog.KindSource {
		tx.batch.DropPositions(o.ID)
		tx.afterCommit(func(c *coordinator) {
			c.sourcesMu.Lock()
			rs := c.running[o.ID]
			delete(c.running, o.ID)
			c.sourcesMu.Unlock()
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
