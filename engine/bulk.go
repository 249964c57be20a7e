package engine

import (
	"fmt"

	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/sources"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// A snapshot loads a relation that starts empty (its Truncate) with rows
// whose keys are unique upstream (sources.Batch.Fresh). The ordinary
// upsert path looks each row's key up first, to retract the row it
// replaces: in the store that is a miss through the memtable and every
// level, which took 55% of the engine's time in a snapshot of a
// 1,000,000-row table, three times what storing the row costs. A fresh
// row replaces nothing, so insertFresh stores it without the lookup.
//
// Nor does it lay the row over the base in the table's overlay: that
// tree, 190 ns a row, exists so that readers see rows the base does not
// hold yet, and a tick of fresh rows takes a new base instead, right
// after its commit and before it publishes (maybeRebase), so that the
// table's next snapshot reads them from the store. Nothing reads the
// table's current contents between the two: maintenance works on the
// tick's deltas, and every other reader reads what was published.
//
// Everything else stays as for any source batch: the rows go into the
// tick's Pebble batch with the source's position, and views created
// before, during or after the snapshot get them as deltas or by
// hydration from the published snapshot.
//
// Sorted sstables ingested into the store would spare the memtable and
// its flush too, but a snapshot comes in upstream's heap order, not key
// order: each batch's file would overlap the others', and Pebble stops
// writes once 24 such files wait in L0 to be merged.

// applyFresh applies changes that sources.Batch.Fresh says only insert
// new keys into an upsert relation. A relation with a watermark, or one
// not stored by key, goes the ordinary way.
func (e *Engine) applyFresh(rs *runningSource, id uint64, changes []sources.Change, batch *storage.Batch, deltas map[uint64]dataflow.Batch) error {
	t, ok := e.tables[id]
	if !ok {
		return fmt.Errorf("source relation %d is missing", id)
	}
	if e.wms[id] != nil || t.notStored() || t.obj.Appends {
		return e.applyChanges(rs, id, changes, batch, deltas)
	}
	d, err := insertFresh(rs, t, changes, batch, deltas[id])
	if err != nil {
		return err
	}
	if len(d) > 0 {
		deltas[id] = d
		e.dirty[id] = true
		e.bypassed = true
	}
	return nil
}

// insertFresh writes the rows of changes under their keys to the store
// only, appending them to d as insertions (see above).
func insertFresh(rs *runningSource, t *tableState, changes []sources.Change, batch *storage.Batch, d dataflow.Batch) (dataflow.Batch, error) {
	key, val := rs.keyBuf[:0], rs.valBuf[:0]
	if d == nil {
		d = make(dataflow.Batch, 0, len(changes))
	}
	for _, ch := range changes {
		if ch.Row == nil || ch.OldKey != nil || len(ch.Unchanged) > 0 {
			return d, fmt.Errorf("source relation %s: a change of a fresh batch does not insert a whole row", t.obj.Name)
		}
		key = types.AppendKeyRow(key[:0], ch.Key)
		val = types.AppendRow(val[:0], ch.Row)
		batch.Put(t.obj.ID, key, val)
		d = append(d, dataflow.Update{Row: ch.Row, Diff: 1})
	}
	t.rows += int64(len(changes))
	t.snap = nil
	rs.keyBuf, rs.valBuf = key, val
	return d, nil
}
