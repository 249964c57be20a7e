package engine

import (
	"github.com/streamdb/streamdb/catalog"
	"github.com/streamdb/streamdb/dataflow"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// Unique indexes (CREATE UNIQUE INDEX, and UNIQUE constraints, which
// create one) are enforced twice, like primary keys: at the end of each
// statement against the snapshot the transaction reads, so that the
// statement fails as in PostgreSQL, and at commit against the current
// contents, so that two transactions cannot add the same key
// concurrently. Both count the rows per key in the index's arrangement
// and add what the transaction changes; NULL keys never conflict.

// uniqueKey returns a row's key in a unique index and its encoding; ok is
// false when a key column is NULL.
func uniqueKey(idx *catalog.Object, row types.Row) (key types.Row, enc string, ok bool) {
	key = make(types.Row, len(idx.KeyCols))
	var buf []byte
	for i, c := range idx.KeyCols {
		if row[c].IsNull() {
			return nil, "", false
		}
		key[i] = row[c]
	}
	buf = types.AppendKeyRow(buf, key)
	return key, string(buf), true
}

// keyChange is how many rows a transaction adds with one key.
type keyChange struct {
	key types.Row
	row types.Row // a new row with the key, for the error
	n   int64
}

// uniqueDelta is the net change a transaction makes to each unique index
// of a table, by index id and key encoding.
type uniqueDelta map[uint64]map[string]*keyChange

// add records a row leaving (old) and one arriving (row); either may be
// nil.
func (d uniqueDelta) add(idxs []*catalog.Object, old, row types.Row) {
	for _, idx := range idxs {
		m := d[idx.ID]
		if m == nil {
			m = map[string]*keyChange{}
			d[idx.ID] = m
		}
		if old != nil {
			if key, enc, ok := uniqueKey(idx, old); ok {
				kc := m[enc]
				if kc == nil {
					kc = &keyChange{key: key}
					m[enc] = kc
				}
				kc.n--
			}
		}
		if row != nil {
			if key, enc, ok := uniqueKey(idx, row); ok {
				kc := m[enc]
				if kc == nil {
					kc = &keyChange{key: key}
					m[enc] = kc
				}
				kc.n++
				kc.row = row
			}
		}
	}
}

// check fails when a key the transaction adds would be held by more than
// one row: the rows of the index's contents plus the transaction's net
// change plus, for the coordinator, what earlier transactions of the same
// tick added (pending).
func (d uniqueDelta) check(idxs []*catalog.Object, table *catalog.Object, contents func(id uint64) *dataflow.Snapshot, pending uniqueDelta) error {
	for _, idx := range idxs {
		snap := contents(idx.ID)
		for enc, kc := range d[idx.ID] {
			if kc.n <= 0 {
				continue
			}
			n := kc.n
			if p := pending[idx.ID][enc]; p != nil {
				n += p.n
			}
			if snap != nil {
				if err := lookupCount(snap, kc.key, &n); err != nil {
					return err
				}
			}
			if n > 1 {
				return uniqueIndexViolation(idx, table, kc.row)
			}
		}
	}
	return nil
}

// merge adds another delta into d.
func (d uniqueDelta) merge(o uniqueDelta) {
	for id, m := range o {
		dm := d[id]
		if dm == nil {
			dm = map[string]*keyChange{}
			d[id] = dm
		}
		for enc, kc := range m {
			if cur := dm[enc]; cur != nil {
				cur.n += kc.n
				continue
			}
			c := *kc
			dm[enc] = &c
		}
	}
}

// lookupCount adds the multiplicity of the rows holding key to n.
func lookupCount(snap *dataflow.Snapshot, key types.Row, n *int64) error {
	return snap.Lookup(key, func(_ types.Row, m int64) bool {
		*n += m
		return true
	})
}

// uniqueIndexViolation is PostgreSQL's error for a duplicate key of a
// unique index.
func uniqueIndexViolation(idx, table *catalog.Object, row types.Row) error {
	names, vals := keyText(table, idx.KeyCols, row)
	return pgerr.New(pgerr.UniqueViolation, "duplicate key value violates unique constraint %q", idx.Name).
		WithDetail("Key (%s)=(%s) already exists.", names, vals)
}

// keyText renders key columns and their values for an error's detail.
func keyText(table *catalog.Object, cols []int, row types.Row) (names, vals string) {
	cfg := types.DefaultTextConfig()
	for i, c := range cols {
		if i > 0 {
			names += ", "
			vals += ", "
		}
		names += table.Columns[c].Name
		if row != nil {
			vals += string(types.AppendText(nil, row[c], table.Columns[c].Type, cfg))
		}
	}
	return names, vals
}

// checkNewUniqueIndex fails with PostgreSQL's error when the contents of
// a new unique index already hold a duplicate key.
func checkNewUniqueIndex(idx, table *catalog.Object, snap *dataflow.Snapshot) error {
	var prev types.Row
	var dup types.Row
	err := snap.ScanAll(func(row types.Row, n int64) bool {
		key, _, ok := uniqueKey(idx, row)
		if !ok {
			return true
		}
		if n > 1 || (prev != nil && types.CompareRows(prev, key) == 0) {
			dup = row
			return false
		}
		prev = key
		return true
	})
	if err != nil {
		return err
	}
	if dup != nil {
		names, vals := keyText(table, idx.KeyCols, dup)
		return pgerr.New(pgerr.UniqueViolation, "could not create unique index %q", idx.Name).
			WithDetail("Key (%s)=(%s) is duplicated.", names, vals)
	}
	return nil
}

// validateUnique is the commit-time check of a transaction's writes
// against the current contents of the unique indexes and what earlier
// transactions of the tick added (pending). It returns the transaction's
// own delta, for the coordinator to add to pending once it applies.
func (e *Engine) validateUnique(w *WriteSet, pending uniqueDelta) (uniqueDelta, error) {
	var d uniqueDelta
	for _, id := range w.tableIDs() {
		idxs := e.cat.UniqueIndexes(id)
		if len(idxs) == 0 {
			continue
		}
		td := uniqueDelta{}
		for _, ch := range w.Tables[id] {
			var old types.Row
			if ch.Existed {
				r, err := types.DecodeRow([]byte(ch.Expect), nil)
				if err != nil {
					return nil, err
				}
				old = r
			}
			td.add(idxs, old, ch.Row)
		}
		if err := td.check(idxs, e.tables[id].obj, e.indexContents, pending); err != nil {
			return nil, err
		}
		if d == nil {
			d = uniqueDelta{}
		}
		d.merge(td)
	}
	return d, nil
}

// indexContents returns the current contents of an index's arrangement.
func (e *Engine) indexContents(id uint64) *dataflow.Snapshot {
	if f := e.flowIndex[id]; f != nil {
		return f.snapshot()
	}
	return nil
}

// UniqueCheck is the statement-level check of a table's unique indexes:
// a transaction's changes to the table, added one by one, against the
// indexes' contents in the snapshot it read.
type UniqueCheck struct {
	table *catalog.Object
	idxs  []*catalog.Object
	d     uniqueDelta
}

// NewUniqueCheck returns the check of table's unique indexes in cat, nil
// when it has none.
func NewUniqueCheck(cat *catalog.Catalog, table *catalog.Object) *UniqueCheck {
	idxs := cat.UniqueIndexes(table.ID)
	if len(idxs) == 0 {
		return nil
	}
	return &UniqueCheck{table: table, idxs: idxs, d: uniqueDelta{}}
}

// Change records a row leaving (old) and one arriving (row); either may
// be nil.
func (u *UniqueCheck) Change(old, row types.Row) { u.d.add(u.idxs, old, row) }

// Check fails with a unique violation when a key the changes add is held
// by more than one row in snap.
func (u *UniqueCheck) Check(snap *Snapshot) error {
	return u.d.check(u.idxs, u.table, func(id uint64) *dataflow.Snapshot {
		v, _ := snap.View(id)
		return v
	}, nil)
}
