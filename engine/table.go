package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// storedRow is one row of a table in an overlay: its storage key (the
// key encoding of the primary key, or of a generated row id for tables
// without one) and its value encoding, or del for a row deleted since
// the base.
type storedRow struct {
	key string
	val string
	del bool
}

func storedLess(a, b storedRow) bool { return a.key < b.key }

func newOverlay() *btree.BTreeG[storedRow] {
	return btree.NewBTreeGOptions(storedLess, btree.Options{NoLocks: true})
}

// tableState is the live contents of a table, owned by the coordinator:
// the store as of the engine's base, with the rows changed since laid
// over it (see table_base.go). Its overlay is copy-on-write: snapshots
// share nodes with it and stay immutable while later ticks change it.
//
// A cold relation (Object.Cold: a source's append-only output) has no
// overlay: its rows are in the store only, where each tick's rows are
// written under growing row ids (in chunks, see cold.go), and the rows
// with ids below a tick's next id are that tick's contents. A relation
// that is not stored (Object.NotStored) keeps nothing: its rows go to
// the views that read it and no further.
type tableState struct {
	obj     *catalog.Object
	base    **baseSnap // the engine's current base
	overlay *btree.BTreeG[storedRow]
	store   *storage.DB // set for a cold relation
	// rows counts the rows (for a relation not stored, those ingested).
	rows      int64
	nextRowID int64
	// loaded is the greatest key of the rows of fresh batches since the
	// relation was last emptied (see bulk.go).
	loaded string
	snap   *TableSnap // snapshot of the current contents, nil after a change
}

func newTableState(obj *catalog.Object, base **baseSnap) *tableState {
	return &tableState{obj: obj, base: base, overlay: newOverlay(), nextRowID: 1}
}

func newColdState(obj *catalog.Object, store *storage.DB) *tableState {
	return &tableState{obj: obj, store: store, nextRowID: 1}
}

// notStored reports whether the relation keeps no rows.
func (t *tableState) notStored() bool { return t.obj.NotStored }

// snapshot returns an immutable view of the current contents.
func (t *tableState) snapshot() *TableSnap {
	if t.snap == nil {
		switch {
		case t.notStored():
			t.snap = &TableSnap{obj: t.obj, rows: t.rows}
		case t.store != nil:
			t.snap = &TableSnap{obj: t.obj, store: t.store, end: t.nextRowID, rows: t.nextRowID - 1}
		default:
			t.snap = &TableSnap{obj: t.obj, base: *t.base, overlay: t.overlay.Copy(), rows: t.rows}
		}
	}
	return t.snap
}

// rebase empties the overlay once the engine took a new base, which
// holds its rows.
func (t *tableState) rebase() {
	if t.overlay != nil && t.overlay.Len() > 0 {
		t.overlay = newOverlay()
		t.snap = nil
	}
}

// get returns the value stored under key.
func (t *tableState) get(key string) (string, bool, error) {
	if r, ok := t.overlay.Get(storedRow{key: key}); ok {
		return r.val, !r.del, nil
	}
	v, ok, err := (*t.base).s.Get(t.obj.ID, []byte(key))
	if err != nil {
		return "", false, fmt.Errorf("table %s: %w", t.obj.Name, err)
	}
	return string(v), ok, nil
}

// put stores a row under key, returning the previous value if any.
func (t *tableState) put(key, val string) (string, bool, error) {
	prev, ok, err := t.get(key)
	if err != nil {
		return "", false, err
	}
	t.snap = nil
	t.overlay.Set(storedRow{key: key, val: val})
	if !ok {
		t.rows++
	}
	return prev, ok, nil
}

// insert stores a row under a key no row has (a new row id).
func (t *tableState) insert(key, val string) {
	t.snap = nil
	t.overlay.Set(storedRow{key: key, val: val})
	t.rows++
}

// remove deletes the row under key, returning its value.
func (t *tableState) remove(key string) (string, bool, error) {
	prev, ok, err := t.get(key)
	if err != nil || !ok {
		return "", false, err
	}
	t.snap = nil
	t.overlay.Set(storedRow{key: key, del: true})
	t.rows--
	return prev, true, nil
}

// TableSnap is a table's contents at one tick: a base of the store with
// an overlay's copy over it, or for a cold relation the rows stored with
// ids below end.
type TableSnap struct {
	obj     *catalog.Object
	base    *baseSnap
	overlay *btree.BTreeG[storedRow]
	store   *storage.DB
	end     int64
	rows    int64
}

// errNotStored is the error of a read of a relation that is not stored.
func errNotStored(obj *catalog.Object) error {
	return pgerr.New(pgerr.FeatureNotSupported, "%q is not stored: the events of its source went to the views that existed as they arrived and cannot be read again", obj.Name).
		WithHint("Query a materialized view over it; create such views before the source ingests, since a new view would lack the events before it.")
}

// SizeHint is the number of rows, or for a cold relation a bound on it.
func (s *TableSnap) SizeHint() int { return int(max(s.rows, 0)) }

// Scan calls fn for every row in key order until fn returns false.
func (s *TableSnap) Scan(fn func(key string, row types.Row) bool) error {
	return s.ScanRange("", "", nil, fn)
}

// ScanRange calls fn for every row whose key lies in [start, end) (an
// empty end is unbounded), in key order, until fn returns false. The rows
// are decoded by dec, or whole into rows of their own when dec is nil.
// The base's rows are merged with the overlay's, which replace or delete
// those of the same key.
func (s *TableSnap) ScanRange(start, end string, dec *RowReader, fn func(key string, row types.Row) bool) error {
	switch {
	case s.obj.NotStored:
		return errNotStored(s.obj)
	case s.store != nil:
		return s.scanCold(start, end, dec, fn)
	}
	var derr error
	err := s.scanEncoded(start, end, func(key, val string) bool {
		row, err := dec.Decode([]byte(val))
		if err != nil {
			derr = fmt.Errorf("table %s: corrupt row: %w", s.obj.Name, err)
			return false
		}
		return fn(key, row)
	})
	if derr != nil {
		return derr
	}
	return err
}

// scanEncoded calls emit with the key and value encoding of every row of
// a table (not cold) whose key lies in [start, end), in key order, until
// emit returns false.
func (s *TableSnap) scanEncoded(start, end string, emit func(key, val string) bool) error {
	var stop []byte
	if end != "" {
		stop = []byte(end)
	}
	it, err := s.base.s.Iter(s.obj.ID, []byte(start), stop)
	if err != nil {
		return err
	}
	var derr error
	// base emits the base's rows with keys below limit (all with an
	// empty limit), and reports whether to go on.
	base := func(limit string, all bool) bool {
		for ; it.Valid(); it.Next() {
			k := it.Key()
			if !all && string(k) >= limit {
				return true
			}
			v, err := it.Value()
			if err != nil {
				derr = err
				return false
			}
			if !emit(string(k), string(v)) {
				return false
			}
		}
		return true
	}
	more := true
	s.overlay.Ascend(storedRow{key: start}, func(r storedRow) bool {
		if end != "" && r.key >= end {
			return false
		}
		if more = base(r.key, false); !more {
			return false
		}
		if it.Valid() && string(it.Key()) == r.key {
			it.Next()
		}
		if !r.del {
			more = emit(r.key, r.val)
		}
		return more
	})
	if more {
		base("", true)
	}
	if err := it.Close(); derr == nil {
		derr = err
	}
	return derr
}

// Get returns the row stored under key.
func (s *TableSnap) Get(key string) (types.Row, bool, error) {
	if s.store != nil {
		return s.getCold(key)
	}
	r, found, err := s.GetRaw(key)
	if err != nil || !found {
		return nil, false, err
	}
	row, err := types.DecodeRow([]byte(r), nil)
	return row, err == nil, err
}

// GetRaw returns the encoded value stored under key in a table. Only
// statements' writes use it, and they never write a cold relation.
func (s *TableSnap) GetRaw(key string) (string, bool, error) {
	if s.obj.NotStored {
		return "", false, errNotStored(s.obj)
	}
	if r, ok := s.overlay.Get(storedRow{key: key}); ok {
		return r.val, !r.del, nil
	}
	v, ok, err := s.base.s.Get(s.obj.ID, []byte(key))
	return string(v), ok, err
}

// batch returns every row as a Z-set insertion.
func (s *TableSnap) batch() (dataflow.Batch, error) {
	b := make(dataflow.Batch, 0, s.SizeHint())
	err := s.Scan(func(_ string, row types.Row) bool {
		b = append(b, dataflow.Update{Row: row, Diff: 1})
		return true
	})
	return b, err
}

// RowKey returns the storage key of a row of a table with a primary key.
func RowKey(obj *catalog.Object, row types.Row) string {
	var buf []byte
	for _, c := range obj.PrimaryKey {
		buf = types.AppendKey(buf, row[c], false)
	}
	return string(buf)
}

// rowIDKey returns the storage key of a generated row id.
func rowIDKey(id int64) string {
	return string(binary.BigEndian.AppendUint64(nil, uint64(id)))
}

// rowIDOf decodes the generated row id at the end of a key: the whole key
// of a row of a table without primary key or of a source's append
// relation (its suffix in stores written before append relations were
// keyed by row id alone).
func rowIDOf(key string) int64 {
	if len(key) < 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64([]byte(key[len(key)-8:])))
}
