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
// Everything else stays as for any source batch: the rows go into the
// tick's Pebble batch with the source's position and into the overlay,
// readers see them when the tick publishes, and views created before,
// during or after the snapshot get them as deltas or by hydration.

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
	}
	return nil
}

// insertFresh inserts the rows of changes under their keys, appending
// them to d as insertions. Keys and values are encoded into two buffers
// and stored as slices of one string each, two allocations per batch
// rather than two per row. A key the overlay already holds breaks the
// source's promise; the engine stops rather than count the row twice.
func insertFresh(rs *runningSource, t *tableState, changes []sources.Change, batch *storage.Batch, d dataflow.Batch) (dataflow.Batch, error) {
	keys, vals, ends := rs.keyBuf[:0], rs.valBuf[:0], rs.ends[:0]
	for _, ch := range changes {
		if ch.Row == nil || ch.OldKey != nil || len(ch.Unchanged) > 0 {
			return d, fmt.Errorf("source relation %s: a change of a fresh batch does not insert a whole row", t.obj.Name)
		}
		keys = types.AppendKeyRow(keys, ch.Key)
		vals = types.AppendRow(vals, ch.Row)
		ends = append(ends, len(keys), len(vals))
	}
	if d == nil {
		d = make(dataflow.Batch, 0, len(changes))
	}
	ks, vs := string(keys), string(vals)
	k0, v0 := 0, 0
	for i, ch := range changes {
		k1, v1 := ends[2*i], ends[2*i+1]
		key := ks[k0:k1]
		if !t.insertNew(key, vs[v0:v1]) {
			return d, fmt.Errorf("source relation %s: a fresh batch inserts key %x twice", t.obj.Name, key)
		}
		batch.Put(t.obj.ID, keys[k0:k1], vals[v0:v1])
		d = append(d, dataflow.Update{Row: ch.Row, Diff: 1})
		k0, v0 = k1, v1
	}
	rs.keyBuf, rs.valBuf, rs.ends = keys, vals, ends
	return d, nil
}
