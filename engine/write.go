package engine

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// Commit applies a transaction's writes in the next tick and waits until
// that tick is durable and published, so that the writer reads its own
// writes in every view. It fails with 40001 when a row the transaction
// read has changed since, and with a unique violation when a key it
// creates has appeared.
func (e *Engine) Commit(ctx context.Context, w *WriteSet) error {
	return e.submit(ctx, &coordReq{writes: w})
}

// validate checks a transaction's writes against the current contents:
// rows it changed must still hold what it read, and keys it created must
// still be free.
func (e *Engine) validate(w *WriteSet) error {
	for _, id := range w.tableIDs() {
		t, ok := e.tables[id]
		if !ok {
			return pgerr.New(pgerr.UndefinedTable, "table was dropped by a concurrent transaction")
		}
		for _, ch := range w.Tables[id] {
			if ch.Key == "" {
				continue
			}
			if t.notStored() {
				return errNotStored(t.obj)
			}
			cur, exists, err := t.get(ch.Key)
			if err != nil {
				return err
			}
			switch {
			case ch.Existed && (!exists || cur != ch.Expect):
				return pgerr.New(pgerr.SerializationFailure, "could not serialize access due to concurrent update").
					WithHint("Retry the transaction.")
			case !ch.Existed && exists:
				return UniqueViolation(t.obj, ch.Row)
			}
		}
	}
	return nil
}

// UniqueViolation is PostgreSQL's error for a duplicate primary key.
func UniqueViolation(obj *catalog.Object, row types.Row) error {
	names, vals := keyText(obj, obj.PrimaryKey, row)
	return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", obj.Name+"_pkey").
		WithDetail("Key (%s)=(%s) already exists.", names, vals)
}

// apply writes validated changes to the tables and the batch and records
// the Z-set delta of each table.
func (e *Engine) apply(w *WriteSet, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	var buf []byte
	for _, id := range w.tableIDs() {
		t := e.tables[id]
		// Room for every change up front: append's growth of a large
		// slice (1.25×) would copy a bulk load's delta many times over.
		d := slices.Grow(deltas[id], len(w.Tables[id]))
		if t.store != nil {
			// A cold table (APPEND ONLY, without key) takes
			// insertions only, kept in the store alone.
			changes := make([]sources.Change, len(w.Tables[id]))
			for i, ch := range w.Tables[id] {
				if ch.Row == nil || ch.Key != "" {
					return fmt.Errorf("table %s is append-only, but a change replaces a row", t.obj.Name)
				}
				changes[i] = sources.Change{Row: ch.Row, Diff: 1}
			}
			var err error
			if d, err = appendCold(&e.coldScratch, t, changes, batch, d); err != nil {
				return err
			}
			if len(d) > 0 {
				deltas[id] = d
				e.dirty[id] = true
			}
			continue
		}
		for _, ch := range w.Tables[id] {
			key := ch.Key
			if ch.Row == nil {
				old, ok, err := t.remove(key)
				if err != nil {
					return err
				}
				if !ok {
					continue
				}
				batch.Delete(id, []byte(key))
				oldRow, err := types.DecodeRow([]byte(old), nil)
				if err != nil {
					return fmt.Errorf("table %s: %w", t.obj.Name, err)
				}
				d = append(d, dataflow.Update{Row: oldRow, Diff: -1})
				continue
			}
			buf = types.AppendRow(buf[:0], ch.Row)
			val := string(buf)
			if key == "" {
				key = rowIDKey(t.nextRowID)
				t.nextRowID++
				t.insert(key, val)
			} else {
				old, replaced, err := t.put(key, val)
				if err != nil {
					return err
				}
				if replaced {
					oldRow, err := types.DecodeRow([]byte(old), nil)
					if err != nil {
						return fmt.Errorf("table %s: %w", t.obj.Name, err)
					}
					d = append(d, dataflow.Update{Row: oldRow, Diff: -1})
				}
			}
			batch.Put(id, []byte(key), buf)
			d = append(d, dataflow.Update{Row: ch.Row, Diff: 1})
		}
		if len(d) > 0 {
			deltas[id] = d
			e.dirty[id] = true
		}
	}
	return nil
}

// RowChange is one change a transaction makes to a table row.
type RowChange struct {
	// Key is the row's storage key; empty for a new row of a table
	// without primary key, which gets a fresh row id at commit.
	Key string
	// Existed says the key held the value Expect (its value encoding)
	// when the transaction read it; commit fails with a serialization
	// error if it no longer does. For a new key, Existed is false and
	// commit fails with a unique violation if the key appeared meanwhile.
	Existed bool
	Expect  string
	// Row is the new row, nil to delete.
	Row types.Row
}

// WriteSet is everything a transaction changes, per table.
type WriteSet struct {
	Tables map[uint64][]RowChange
}

// Empty reports whether the transaction changes nothing.
func (w *WriteSet) Empty() bool {
	for _, cs := range w.Tables {
		if len(cs) > 0 {
			return false
		}
	}
	return true
}

// tableIDs returns the changed tables in id order, so that commits apply
// deterministically.
func (w *WriteSet) tableIDs() []uint64 {
	ids := make([]uint64, 0, len(w.Tables))
	for id := range w.Tables {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}
