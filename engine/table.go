package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/tidwall/btree"

	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/storage"
	"github.com/streamdb/streamdb/types"
)

// storedRow is one row of a table: its storage key (the key encoding of
// the primary key, or of a generated row id for tables without one) and
// its value encoding.
type storedRow struct {
	key string
	val string
}

func storedLess(a, b storedRow) bool { return a.key < b.key }

// tableState is the live contents of a table, owned by the coordinator.
// Its tree is copy-on-write: snapshots share nodes with it and stay
// immutable while later ticks change the table.
//
// A cold relation (Object.Cold: a source's append-only output) has no
// tree: its rows live only in the store, where each tick's rows are
// written under growing row ids (in chunks, see cold.go), so memory does
// not grow with the data ingested and the rows with ids below a tick's
// next id are that tick's contents.
type tableState struct {
	obj       *catalog.Object
	rows      *btree.BTreeG[storedRow] // nil for a cold relation
	store     *storage.DB              // set for a cold relation
	nextRowID int64
	snap      *TableSnap // snapshot of the current contents, nil after a change
}

func newTableState(obj *catalog.Object) *tableState {
	return &tableState{obj: obj, rows: btree.NewBTreeGOptions(storedLess, btree.Options{NoLocks: true}), nextRowID: 1}
}

func newColdState(obj *catalog.Object, store *storage.DB) *tableState {
	return &tableState{obj: obj, store: store, nextRowID: 1}
}

// snapshot returns an immutable view of the current contents.
func (t *tableState) snapshot() *TableSnap {
	if t.snap == nil {
		if t.store != nil {
			t.snap = &TableSnap{obj: t.obj, store: t.store, end: t.nextRowID}
		} else {
			t.snap = &TableSnap{obj: t.obj, rows: t.rows.Copy()}
		}
	}
	return t.snap
}

// put stores a row under key, returning the previous value if any.
func (t *tableState) put(key, val string) (string, bool) {
	t.snap = nil
	prev, ok := t.rows.Set(storedRow{key: key, val: val})
	return prev.val, ok
}

// remove deletes the row under key, returning its value.
func (t *tableState) remove(key string) (string, bool) {
	t.snap = nil
	prev, ok := t.rows.Delete(storedRow{key: key})
	return prev.val, ok
}

// get returns the value stored under key.
func (t *tableState) get(key string) (string, bool) {
	r, ok := t.rows.Get(storedRow{key: key})
	return r.val, ok
}

// TableSnap is a table's contents at one tick: a copy of its tree, or for
// a cold relation the rows stored with ids below end.
type TableSnap struct {
	obj   *catalog.Object
	rows  *btree.BTreeG[storedRow]
	store *storage.DB
	end   int64
}

// SizeHint is the number of rows, or for a cold relation a bound on it.
func (s *TableSnap) SizeHint() int {
	if s.store != nil {
		return int(s.end - 1)
	}
	return s.rows.Len()
}

// Scan calls fn for every row in key order until fn returns false.
func (s *TableSnap) Scan(fn func(key string, row types.Row) bool) error {
	return s.ScanRange("", "", nil, fn)
}

// ScanRange calls fn for every row whose key lies in [start, end) (an
// empty end is unbounded), in key order, until fn returns false. The rows
// are decoded by dec, or whole into rows of their own when dec is nil.
func (s *TableSnap) ScanRange(start, end string, dec *RowReader, fn func(key string, row types.Row) bool) error {
	if s.store != nil {
		return s.scanCold(start, end, dec, fn)
	}
	var derr error
	visit := func(r storedRow) bool {
		if end != "" && r.key >= end {
			return false
		}
		row, err := dec.Decode([]byte(r.val))
		if err != nil {
			derr = fmt.Errorf("table %s: corrupt row: %w", s.obj.Name, err)
			return false
		}
		return fn(r.key, row)
	}
	if start == "" {
		s.rows.Scan(visit)
	} else {
		s.rows.Ascend(storedRow{key: start}, visit)
	}
	return derr
}

// Get returns the row stored under key.
func (s *TableSnap) Get(key string) (types.Row, bool, error) {
	if s.store != nil {
		return s.getCold(key)
	}
	r, found := s.GetRaw(key)
	if !found {
		return nil, false, nil
	}
	row, err := types.DecodeRow([]byte(r), nil)
	return row, err == nil, err
}

// GetRaw returns the encoded value stored under key in a table. Only
// statements' writes use it, and they never write a cold relation.
func (s *TableSnap) GetRaw(key string) (string, bool) {
	r, ok := s.rows.Get(storedRow{key: key})
	return r.val, ok
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
