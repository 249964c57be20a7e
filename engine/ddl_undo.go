package engine

import (
	"context"
	"encoding/binary"
	"encoding/json"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/pgerr"
)

// Catalog changes that can be taken back. A transaction block's DDL
// commits at once (other sessions see it before the block commits), and
// the front end undoes it when the block rolls back: a CREATE by
// dropping what it made, a rename by putting the renamed objects' old
// entries back (Replace), and a DROP by restoring what it removed
// (Restore), from what Drop kept of it.

// Dropped is an object as Drop removed it: its catalog entry and, for a
// table, its rows and where its generated row ids stood; for a
// sequence, its position. It is enough to put the object back as it was.
type Dropped struct {
	Obj       *catalog.Object
	rows      *TableSnap
	nextRowID int64
	seqLast   int64
	seqCalled bool
}

// DroppedObjects returns what the change has dropped so far, in the
// order it dropped them.
func (tx *DDL) DroppedObjects() []Dropped { return tx.droppedList }

// ReplacedObjects returns the entries Replace changed so far, as they
// were before, in order.
func (tx *DDL) ReplacedObjects() []*catalog.Object { return tx.replacedList }

// keep records what Drop removes, before it does.
func (tx *DDL) keep(o *catalog.Object) {
	d := Dropped{Obj: o}
	if t, ok := tx.e.tables[o.ID]; ok && t.store == nil && !t.notStored() {
		d.rows, d.nextRowID = t.snapshot(), t.nextRowID
	}
	if st := tx.e.seqs.get(o.ID); st != nil {
		st.mu.Lock()
		d.seqLast, d.seqCalled = st.last, st.called
		st.mu.Unlock()
	}
	tx.droppedList = append(tx.droppedList, d)
}

// Restore puts a dropped object back under its id and name: a table
// with the rows it had when it was dropped, a sequence at its position,
// a materialized view or index rebuilt from what it reads. The objects
// it reads must exist; restore them first, each in a change of its own.
func (tx *DDL) Restore(ctx context.Context, d Dropped) error {
	o := d.Obj
	if o.Cold {
		return pgerr.New(pgerr.FeatureNotSupported, "cannot restore %s %q", o.Kind, o.Name)
	}
	if err := tx.Create(ctx, o); err != nil {
		return err
	}
	if o.Kind == catalog.KindSequence {
		st := &seqState{def: *o.Sequence, last: d.seqLast, called: d.seqCalled}
		tx.batch.SetPosition(o.ID, "", seqPosition(d.seqLast, d.seqCalled))
		tx.afterCommit(func(_ context.Context, e *Engine) { e.seqs.set(o.ID, st) })
	}
	if d.rows == nil || !o.HasRows() {
		return nil
	}
	t := tx.newTables[len(tx.newTables)-1]
	t.nextRowID = d.nextRowID
	err := d.rows.scanEncoded("", "", func(key, val string) bool {
		t.insert(key, val)
		tx.batch.Put(o.ID, []byte(key), []byte(val))
		return true
	})
	tx.batch.SetMeta(rowsKey(o.ID), binary.AppendVarint(nil, t.rows))
	return err
}

// Replace changes an object's catalog entry in place, keeping its id,
// its contents and its dataflow: a rename, or a view's definition
// rewritten after a rename of something it reads. old is the entry as
// it is now.
func (tx *DDL) Replace(old, o *catalog.Object) error {
	if o.ID != old.ID || o.Kind != old.Kind {
		return pgerr.New(pgerr.InternalError, "replace of %s %q changes its identity", old.Kind, old.Name)
	}
	if other, exists := tx.cat.Conflict(o); exists && other.ID != o.ID {
		return errExists(o, other, tx.cat)
	}
	data, err := json.Marshal(o)
	if err != nil {
		return err
	}
	tx.cat.Replace(old, o)
	tx.replacedList = append(tx.replacedList, old)
	tx.batch.PutCatalog(o.ID, data)
	tx.afterCommit(func(_ context.Context, e *Engine) {
		if t, ok := e.tables[o.ID]; ok {
			t.obj, t.snap = o, nil
			e.dirty[o.ID] = true
		}
		if f := e.flowIndex[o.ID]; f != nil {
			f.obj = o
		}
	})
	return nil
}
