package engine

import (
	"fmt"
	"slices"

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
// Sorted sstables ingested into the store (DB.Ingest) would spare the
// memtable, the log and the flush too, a third of a fresh row's cost in
// the store, but were not worth it here. Each ingestion syncs its file
// and the manifest inside the tick, several milliseconds on this
// machine's disk (a small synced write takes 0.8 ms, a synced megabyte
// 8): with a snapshot's batches of 8,192 rows that is more wall time than
// the whole memtable path, which leaves the disk to the flush in the
// background and to the one synced commit at the snapshot's end. And a
// snapshot comes in upstream's heap order, not key order: unless it
// happens to be sorted, each batch's file overlaps the others', and
// Pebble stops writes once 24 such files wait in L0 to be merged.

// dropUnread empties the relations of the outputs b truncates and
// refills with fresh rows that nothing reads — no view, index,
// subscription or sink — without reading them: the rows of a snapshot a
// crash interrupted, which a Truncate would otherwise retract one by
// one, their keys and decoded rows all in memory at once. Their stored
// rows go in one range deletion and the tick takes a new base; the
// history of changes, which has no retractions to undo, starts again at
// the tick, as for a relation created then. It returns the outputs left
// for truncate.
func (e *Engine) dropUnread(rs *runningSource, b *sources.Batch, batch *storage.Batch, deltas map[uint64]dataflow.Batch) []int {
	if len(b.Fresh) == 0 {
		return b.Truncate
	}
	var rest []int
	for _, o := range b.Truncate {
		t := e.sourceRelation(rs, o)
		if t == nil || !slices.Contains(b.Fresh, o) || t.notStored() || t.store != nil || !e.unread(t.obj.ID) {
			rest = append(rest, o)
			continue
		}
		batch.DropCollection(t.obj.ID)
		if _, ok := deltas[t.obj.ID]; !ok {
			// The tick commits, and saves the relation's row count,
			// even if no row follows.
			deltas[t.obj.ID] = dataflow.Batch{}
		}
		t.rows = 0
		t.snap = nil
		e.dirty[t.obj.ID] = true
		e.bypassed = true
		e.emptied = append(e.emptied, t.obj.ID)
	}
	return rest
}

// unread reports whether nothing reads a relation's changes.
func (e *Engine) unread(id uint64) bool {
	return len(e.readers[id]) == 0 && len(e.directSubs[id]) == 0 && e.sinkRels[id] == 0
}

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
