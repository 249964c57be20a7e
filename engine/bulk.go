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
// A batch of fresh rows in key order, large enough, and above the keys
// of the relation's earlier fresh rows goes into the store as a table
// file of its own (storage.DB.Ingest), not through the tick's batch: it
// skips the log, the memtable and its flush, and, since no stored key
// lies within its range, every compaction, Pebble placing the file in
// the last level. Those were 40% of the process's CPU in a snapshot of
// 2,000,000 rows; ingested, a 1,000,000-row snapshot took 13% less CPU
// per row. A snapshot of a table whose heap is in key order (a serial
// key, a bulk load) gets that for all its batches but the first. The
// file is ingested before the tick commits, so the rows are durable
// before the position that says so; a crash in between leaves rows that
// no position covers, which the snapshot's Truncate removes when it
// starts over (truncate counts the relation empty then, whatever its
// row count said). A batch the tick wrote to already (the Truncate's
// range deletion) is not ingested: the batch would apply over the file.
// Neither is a batch out of order: its file would overlap the others',
// piling up in L0, where Pebble stops writes at 24 files. And each
// ingestion waits for two syncs of the disk (a synced small write took
// 0.8 ms on this machine), so small batches go through the tick's batch.

// dropUnread empties the relations of the outputs b truncates and
// refills with fresh rows that nothing reads — no view, index,
// subscription or sink — without reading them: the rows of a snapshot a
// crash interrupted, which a Truncate would otherwise retract one by
// one, their keys and decoded rows all in memory at once. Their stored
// rows go in one range deletion and the tick takes a new base; the
// history of changes, which has no retractions to undo, starts again at
// the tick, as for a relation created then. A relation with no row in
// the store takes no range deletion, which would also make the next
// ingestion wait for a flush of the memtable holding it. It returns the
// outputs left for truncate.
func (e *Engine) dropUnread(rs *runningSource, b *sources.Batch, batch *storage.Batch, deltas map[uint64]dataflow.Batch) ([]int, error) {
	if len(b.Fresh) == 0 {
		return b.Truncate, nil
	}
	var rest []int
	for _, o := range b.Truncate {
		t := e.sourceRelation(rs, o)
		if t == nil || !slices.Contains(b.Fresh, o) || t.notStored() || t.store != nil || !e.unread(t.obj.ID) {
			rest = append(rest, o)
			continue
		}
		if _, stored, err := e.store.LastKey(t.obj.ID); err != nil {
			return nil, err
		} else if stored {
			batch.DropCollection(t.obj.ID)
		}
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
	return rest, nil
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
	// A relation the tick's batch wrote already (its Truncate's range
	// deletion) must have these rows in the batch too, after: a file
	// ingested now would be under the batch's writes.
	d, touched := deltas[id]
	d, err := e.insertFresh(rs, t, changes, batch, d, !touched)
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

// minIngestRows is the fewest rows insertFresh ingests as a file: an
// ingestion waits for two syncs of the disk.
const minIngestRows = 16384

// insertFresh writes the rows of changes under their keys to the store
// only, appending them to d as insertions (see above): as a file
// ingested into the store when it may (ingest), there are enough of them
// and their keys continue in order past those of the relation's earlier
// fresh rows, else into the tick's batch.
func (e *Engine) insertFresh(rs *runningSource, t *tableState, changes []sources.Change, batch *storage.Batch, d dataflow.Batch, ingest bool) (dataflow.Batch, error) {
	keys, vals, ends := rs.keyBuf[:0], rs.valBuf[:0], rs.ends[:0]
	// row returns the key and value of the i-th row.
	row := func(i int) ([]byte, []byte) {
		k0, v0 := 0, 0
		if i > 0 {
			k0, v0 = ends[2*i-2], ends[2*i-1]
		}
		return keys[k0:ends[2*i]], vals[v0:ends[2*i+1]]
	}
	sorted := true
	var greatest []byte
	for i, ch := range changes {
		if ch.Row == nil || ch.OldKey != nil || len(ch.Unchanged) > 0 {
			return d, fmt.Errorf("source relation %s: a change of a fresh batch does not insert a whole row", t.obj.Name)
		}
		keys = types.AppendKeyRow(keys, ch.Key)
		vals = types.AppendRow(vals, ch.Row)
		ends = append(ends, len(keys), len(vals))
		cur, _ := row(i)
		if i > 0 && string(cur) <= string(greatest) {
			sorted = false
			continue
		}
		greatest = cur
	}
	rs.keyBuf, rs.valBuf, rs.ends = keys, vals, ends
	if len(changes) == 0 {
		return d, nil
	}
	first, _ := row(0)
	if ingest && sorted && len(changes) >= minIngestRows && string(first) > t.loaded {
		if err := e.store.Ingest(t.obj.ID, len(changes), row); err != nil {
			return d, fmt.Errorf("source relation %s: %w", t.obj.Name, err)
		}
	} else {
		for i := range changes {
			k, v := row(i)
			batch.Put(t.obj.ID, k, v)
		}
	}
	if !ingest || string(greatest) > t.loaded {
		t.loaded = string(greatest)
	}
	if d == nil {
		d = make(dataflow.Batch, 0, len(changes))
	}
	for _, ch := range changes {
		d = append(d, dataflow.Update{Row: ch.Row, Diff: 1})
	}
	t.rows += int64(len(changes))
	t.snap = nil
	return d, nil
}
